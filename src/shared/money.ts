import { Schema } from "effect"
import type { Locale } from "./locale.ts"

/**
 * Money on the wire: an integer `*_cents` field (smallest currency unit) beside a string
 * formatted for the business currency and the request locale (`total_cents: 1999`,
 * `total: "$19.99"`). Currencies without minor units (JPY) still count in their smallest unit.
 */
export const Cents = Schema.Int.annotate({ description: "Amount in the smallest unit of the business currency" })
export const FormattedMoney = Schema.String.annotate({
  description: "The amount formatted for the business currency and the request locale",
  examples: ["$19.99"]
})

/** A formatter and its currency's minor-unit digits, made once per locale and currency (both are costly to make). */
const formatters = new Map<string, { readonly format: Intl.NumberFormat; readonly digits: number }>()

const formatterFor = (currency: string, locale: Locale) => {
  const key = `${locale}|${currency}`
  let formatter = formatters.get(key)
  if (!formatter) {
    const format = new Intl.NumberFormat(locale, { style: "currency", currency })
    formatter = { format, digits: format.resolvedOptions().maximumFractionDigits ?? 2 }
    formatters.set(key, formatter)
  }
  return formatter
}

export const formatMoney = (cents: number, currency: string, locale: Locale): string => {
  const { format, digits } = formatterFor(currency, locale)
  return format.format(cents / 10 ** digits)
}
