import type { Locale } from "./locale.ts"
import { type Catalog, en, type MessageKey } from "./i18n/en.ts"
import { de } from "./i18n/de.ts"
import { enGB } from "./i18n/en-GB.ts"
import { esES } from "./i18n/es-ES.ts"
import { sv } from "./i18n/sv.ts"
import { ruRU } from "./i18n/ru-RU.ts"
import { fr } from "./i18n/fr.ts"
import { ptBR } from "./i18n/pt-BR.ts"
import { nlNL } from "./i18n/nl-NL.ts"
import { ltLT } from "./i18n/lt-LT.ts"
import { zhCN } from "./i18n/zh-CN.ts"
import { zhTW } from "./i18n/zh-TW.ts"

export type { MessageKey } from "./i18n/en.ts"

const catalogs: Record<Locale, Catalog> = {
  de,
  en,
  "en-GB": enGB,
  "es-ES": esES,
  sv,
  "ru-RU": ruRU,
  fr,
  "pt-BR": ptBR,
  "nl-NL": nlNL,
  "lt-LT": ltLT,
  "zh-CN": zhCN,
  "zh-TW": zhTW
}

export type MessageParams = Readonly<Record<string, string | number>>

/** Translates a message key for a locale, interpolating `%{name}` placeholders. */
export const t = (locale: Locale, key: MessageKey, params: MessageParams = {}): string =>
  (catalogs[locale][key] ?? en[key]).replace(/%\{(\w+)\}/g, (match, name: string) =>
    name in params ? String(params[name]) : match
  )
