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

const formatters = new Map<string, Intl.NumberFormat>()

const formatterFor = (currency: string, locale: Locale) => {
  const key = `${locale}|${currency}`
  let formatter = formatters.get(key)
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, { style: "currency", currency })
    formatters.set(key, formatter)
  }
  return formatter
}

export const minorUnits = (currency: string): number =>
  new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2

export const formatMoney = (cents: number, currency: string, locale: Locale): string => {
  const formatter = formatterFor(currency, locale)
  const digits = formatter.resolvedOptions().maximumFractionDigits ?? 2
  return formatter.format(cents / 10 ** digits)
}
