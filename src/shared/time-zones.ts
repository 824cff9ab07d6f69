import type { Locale } from "./locale.ts"

const formatters = new Map<string, Intl.DateTimeFormat>()

/**
 * A time zone's friendly name in the request's locale ("Pacific Time", "Mitteleuropäische
 * Zeit"), from the IANA name. Formatters are cached: building one costs far more than using it.
 */
export const friendlyTimeZone = (timeZone: string, locale: Locale): string => {
  const key = `${locale}|${timeZone}`
  let formatter = formatters.get(key)
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "longGeneric" })
    } catch {
      return timeZone
    }
    formatters.set(key, formatter)
  }
  return formatter.formatToParts(new Date(0)).find((part) => part.type === "timeZoneName")?.value ?? timeZone
}

export const isValidTimeZone = (timeZone: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone })
    return true
  } catch {
    return false
  }
}
