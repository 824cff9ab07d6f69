import type { CardNetwork, VaultedCard, VaultingRequirements, VaultProblem } from "./gateway.ts"

/**
 * The sandbox gateway's card rules: what its hosted form checks (spec, vaulting step two) and
 * how it treats the documented test numbers. Pure functions over the posted fields.
 *
 * Test numbers (any future expiry, any CVV of the right length):
 * - 4242424242424242 (visa), 5555555555554444 (master_card), 378282246310005 (american_express),
 *   6011111111111117 (discover): vault, and every charge succeeds.
 * - 4000000000000002: declined when vaulted (the card's verification fails).
 * - 4000000000000341: vaults, and every charge is declined (`card_declined`).
 * - 4000000000009995: vaults, and every charge is declined (`insufficient_funds`).
 * Any other number passing the Luhn check vaults and charges succeed.
 */
export type CardBehaviour = "succeed" | "decline" | "insufficient_funds"

export const DECLINED_AT_VAULTING = "4000000000000002"
const BEHAVIOURS: Record<string, CardBehaviour> = {
  "4000000000000341": "decline",
  "4000000000009995": "insufficient_funds"
}

export const behaviourOf = (number: string): CardBehaviour => BEHAVIOURS[number] ?? "succeed"

export const luhn = (digits: string) => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}

export const networkOf = (digits: string): CardNetwork => {
  if (/^4/.test(digits)) return "visa"
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return "master_card"
  if (/^3[47]/.test(digits)) return "american_express"
  if (/^(6011|65|64[4-9]|622)/.test(digits)) return "discover"
  return "unknown"
}

const regions = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" })
/** An assigned ISO 3166-1 alpha-2 code (as ICU knows them). */
export const isCountryCode = (value: string) => {
  if (!/^[A-Z]{2}$/.test(value) || value === "ZZ") return false
  const name = regions.of(value)
  return name !== undefined && name !== value
}

/** The posted form, as strings (the request pipeline turned it into JSON). */
export type CardFields = Readonly<Record<string, unknown>>

const text = (fields: CardFields, name: string) => {
  const value = fields[name]
  return typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : ""
}

/** A card that passed the checks: what the vault keeps of it, and its number. */
export interface CheckedCard extends Omit<VaultedCard, "token"> {
  readonly number: string
}

/**
 * Every problem of the posted card at once (fields by their form names), or the card.
 * `now` is the gateway's clock; a card expires after the last day of its month (UTC).
 */
export const checkCard = (
  fields: CardFields,
  requirements: VaultingRequirements,
  now: Date
): { readonly _tag: "Valid"; readonly card: CheckedCard } | { readonly _tag: "Invalid"; readonly problems: ReadonlyArray<VaultProblem> } => {
  const problems: Array<VaultProblem> = []
  const rawNumber = text(fields, "billing-cc-number")
  const number = rawNumber.replace(/[\s-]/g, "")
  let cardType: CardNetwork = "unknown"
  if (rawNumber === "") problems.push({ field: "billing-cc-number", problem: "blank" })
  else if (!/^\d{12,19}$/.test(number) || !luhn(number)) problems.push({ field: "billing-cc-number", problem: "invalid" })
  else {
    cardType = networkOf(number)
    if (!requirements.acceptedCardTypes.includes(cardType)) problems.push({ field: "billing-cc-number", problem: "not_accepted" })
  }

  const expiry = text(fields, "billing-cc-exp")
  let expireMonth = 0
  let expireYear = 0
  if (expiry === "") problems.push({ field: "billing-cc-exp", problem: "blank" })
  else if (!/^(0[1-9]|1[0-2])\d{2}$/.test(expiry)) problems.push({ field: "billing-cc-exp", problem: "invalid" })
  else {
    expireMonth = Number(expiry.slice(0, 2))
    expireYear = 2000 + Number(expiry.slice(2))
    const current = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1
    if (expireYear * 12 + expireMonth < current) problems.push({ field: "billing-cc-exp", problem: "expired" })
  }

  const cvv = text(fields, "billing-cvv")
  if (cvv === "") {
    if (requirements.cvv) problems.push({ field: "billing-cvv", problem: "blank" })
  } else if (!(cardType === "american_express" ? /^\d{4}$/ : /^\d{3,4}$/).test(cvv)) {
    problems.push({ field: "billing-cvv", problem: "invalid" })
  }

  const firstName = text(fields, "billing-first-name")
  const lastName = text(fields, "billing-last-name")
  if (firstName === "") problems.push({ field: "billing-first-name", problem: "blank" })
  if (lastName === "") problems.push({ field: "billing-last-name", problem: "blank" })
  if (requirements.address) {
    for (const name of ["billing-address1", "billing-city"]) if (text(fields, name) === "") problems.push({ field: name, problem: "blank" })
  }
  if (requirements.postal && text(fields, "billing-postal") === "") problems.push({ field: "billing-postal", problem: "blank" })
  const state = text(fields, "billing-state")
  if (state !== "" && !/^[A-Za-z]{2}$/.test(state)) problems.push({ field: "billing-state", problem: "invalid" })
  const country = text(fields, "billing-country")
  if (country !== "" && !isCountryCode(country.toUpperCase())) problems.push({ field: "billing-country", problem: "invalid" })

  if (problems.length === 0 && number === DECLINED_AT_VAULTING) problems.push({ field: null, problem: "declined" })
  if (problems.length > 0) return { _tag: "Invalid", problems }
  return { _tag: "Valid", card: { number, cardType, lastFour: number.slice(-4), expireMonth, expireYear, firstName, lastName } }
}
