import type { Locale } from "./locale.ts"

const friendlyNames = new Map<string, string>()

/**
 * A time zone's friendly name in the request's locale ("Pacific Time", "Mitteleuropäische
 * Zeit"), from the IANA name. The answer for a locale and zone never changes, and computing
 * it costs tens of microseconds, so each is computed once.
 */
export const friendlyTimeZone = (timeZone: string, locale: Locale): string => {
  const key = `${locale}|${timeZone}`
  let name = friendlyNames.get(key)
  if (name === undefined) {
    try {
      const formatter = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "longGeneric" })
      name = formatter.formatToParts(new Date(0)).find((part) => part.type === "timeZoneName")?.value ?? timeZone
    } catch {
      name = timeZone
    }
    if (friendlyNames.size < 10_000) friendlyNames.set(key, name)
  }
  return name
}

export const isValidTimeZone = (timeZone: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone })
    return true
  } catch {
    return false
  }
}
