/** The locales of `X-FD-Locale` (spec, common rule 6). */
export const LOCALES = ["de", "en", "en-GB", "es-ES", "sv", "ru-RU", "fr", "pt-BR", "nl-NL", "lt-LT", "zh-CN", "zh-TW"] as const
export type Locale = (typeof LOCALES)[number]

const byLowerCase = new Map<string, Locale>(LOCALES.map((locale) => [locale.toLowerCase(), locale]))

/** Exact tags match case-insensitively; anything else is "not a supported value". */
export const parseLocale = (value: string | undefined | null): Locale | undefined =>
  value ? byLowerCase.get(value.trim().toLowerCase()) : undefined

/** Header when supported, else the business default, else `en`. */
export const resolveLocale = (header: string | undefined, businessDefault: string | undefined): Locale =>
  parseLocale(header) ?? parseLocale(businessDefault) ?? "en"
