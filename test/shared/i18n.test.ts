import { describe, expect, it } from "vitest"
import { t, type MessageKey } from "../../src/shared/i18n.ts"
import { en } from "../../src/shared/i18n/en.ts"
import { LOCALES } from "../../src/shared/locale.ts"

const keys = Object.keys(en) as ReadonlyArray<MessageKey>

const placeholders = (text: string): ReadonlyArray<string> =>
  [...new Set([...text.matchAll(/%\{(\w+)\}/g)].map((match) => match[1] ?? ""))].sort()

describe("i18n catalogs", () => {
  for (const locale of LOCALES) {
    describe(locale, () => {
      it("yields a non-empty string for every key", () => {
        for (const key of keys) {
          const text = t(locale, key)
          expect(typeof text, key).toBe("string")
          expect(text.trim().length, key).toBeGreaterThan(0)
        }
      })

      it("keeps the English placeholders for every key", () => {
        for (const key of keys) {
          expect(placeholders(t(locale, key)), key).toEqual(placeholders(en[key]))
        }
      })

      if (locale !== "en" && locale !== "en-GB") {
        it("translates at least 80% of keys", () => {
          const translated = keys.filter((key) => t(locale, key) !== en[key]).length
          expect(translated / keys.length).toBeGreaterThanOrEqual(0.8)
        })
      }
    })
  }

  it("interpolates parameters", () => {
    expect(t("de", "location_not_found", { id: 7 })).toContain("7")
  })
})
