import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { parseRailsForm } from "../../src/shared/form-body.ts"
import { formatMoney } from "../../src/shared/money.ts"
import { formatTimestamp, parseTimestamp, TimestampInput } from "../../src/shared/schemas.ts"
import { resolveLocale } from "../../src/shared/locale.ts"
import { classifyHost } from "../../src/access/tenant.ts"
import { makeMemoryRateLimitStore } from "../../src/platform/rate-limit.ts"

/** The object a form within the bounds stands for. */
const formObject = (body: string) => {
  const parsed = parseRailsForm(body)
  return parsed._tag === "Ok" ? parsed.value : parsed
}

describe("Rails-style form bodies", () => {
  it("nest bracketed keys into the JSON body they stand for", () => {
    expect(formObject("visit[person_id]=1&visit[event_occurrence_id]=2")).toEqual({
      visit: { person_id: "1", event_occurrence_id: "2" }
    })
  })
  it("collect [] keys into arrays", () => {
    expect(formObject("pack[person_ids][]=7&pack[person_ids][]=8&pack[count]=3")).toEqual({
      pack: { person_ids: ["7", "8"], count: "3" }
    })
  })
  it("build arrays of objects, starting a new element when a key repeats", () => {
    expect(
      formObject("booking[leases][][event_occurrence_id]=1&booking[leases][][person][id]=5&booking[leases][][event_occurrence_id]=2")
    ).toEqual({ booking: { leases: [{ event_occurrence_id: "1", person: { id: "5" } }, { event_occurrence_id: "2" }] } })
  })
  it("decode escapes and ignore prototype keys", () => {
    const parsed = formObject("note[note]=caf%C3%A9+au+lait&__proto__[x]=1&a[constructor][y]=2")
    expect(parsed).toEqual({ note: { note: "café au lait" } })
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })
})

describe("timestamps", () => {
  it("accept offsets with and without a colon, and Z", () => {
    const expected = "2015-07-06T07:00:00.000Z"
    expect(parseTimestamp("2015-07-06T00:00:00-0700")?.toISOString()).toBe(expected)
    expect(parseTimestamp("2015-07-06T00:00:00-07:00")?.toISOString()).toBe(expected)
    expect(parseTimestamp("2015-07-06T07:00:00Z")?.toISOString()).toBe(expected)
    expect(parseTimestamp("2015-07-06T12:30:00+0530")?.toISOString()).toBe(expected)
    expect(parseTimestamp("2015-07-06T00:00-07")?.toISOString()).toBe(expected)
  })
  it("read a timestamp without an offset in the given time zone (UTC by default)", () => {
    expect(parseTimestamp("2015-07-06T00:00:00")?.toISOString()).toBe("2015-07-06T00:00:00.000Z")
    expect(parseTimestamp("2015-07-06 00:00", "America/Los_Angeles")?.toISOString()).toBe("2015-07-06T07:00:00.000Z")
    expect(parseTimestamp("2015-7-6T0:0:5.5", "America/Los_Angeles")?.toISOString()).toBe("2015-07-06T07:00:05.500Z")
  })
  it("refuse timestamps that do not exist or are not times", () => {
    expect(parseTimestamp("2015-13-06T00:00:00Z")).toBeUndefined()
    expect(parseTimestamp("2015-02-29T00:00:00Z")).toBeUndefined()
    expect(parseTimestamp("2015-07-06T00:00:00.5")).toBeDefined()
    expect(parseTimestamp("2015-07-06T00:00.5")).toBeUndefined()
    expect(parseTimestamp("2015-07-06T00:00:00-07:60")).toBeUndefined()
    expect(parseTimestamp("2015-07-06")).toBeUndefined()
    expect(parseTimestamp("yesterday")).toBeUndefined()
    expect(parseTimestamp("")).toBeUndefined()
  })
  it("go out in UTC with the Z designator", () => {
    expect(formatTimestamp(new Date("2015-07-06T00:00:00-07:00"))).toBe("2015-07-06T07:00:00Z")
  })
  it("decode through the shared schema", () => {
    expect(Schema.decodeUnknownSync(TimestampInput)("2015-07-06T00:00:00-0700").toISOString()).toBe("2015-07-06T07:00:00.000Z")
    expect(() => Schema.decodeUnknownSync(TimestampInput)("2015-07-06")).toThrow()
  })
})

describe("money", () => {
  it("formats cents for the currency and the locale", () => {
    expect(formatMoney(1999, "USD", "en")).toBe("$19.99")
    expect(formatMoney(1999, "EUR", "de")).toBe("19,99\u00a0€")
    expect(formatMoney(1999, "GBP", "en-GB")).toBe("£19.99")
    expect(formatMoney(1999, "JPY", "en")).toBe("¥1,999")
    expect(formatMoney(-500, "SEK", "sv")).toMatch(/5,00\s*kr/)
  })
})

describe("locale resolution", () => {
  it("prefers a supported header, then the business default, then en", () => {
    expect(resolveLocale("fr", "de")).toBe("fr")
    expect(resolveLocale("PT-br", "de")).toBe("pt-BR")
    expect(resolveLocale("klingon", "de")).toBe("de")
    expect(resolveLocale(undefined, "zh-TW")).toBe("zh-TW")
    expect(resolveLocale(undefined, undefined)).toBe("en")
  })
})

describe("hosts", () => {
  it("tell business hosts from the account-level host and from foreign hosts", () => {
    expect(classifyHost("demo.localhost:3000", "localhost")).toEqual({ _tag: "Business", subdomain: "demo" })
    expect(classifyHost("localhost:3000", "localhost")).toEqual({ _tag: "Account" })
    expect(classifyHost("LOCALHOST.", "localhost")).toEqual({ _tag: "Account" })
    expect(classifyHost("a.b.localhost", "localhost")._tag).toBe("Foreign")
    expect(classifyHost("evil.com", "localhost")._tag).toBe("Foreign")
    expect(classifyHost(undefined, "localhost")._tag).toBe("Foreign")
  })
})

describe("the in-memory rate limit store", () => {
  it("admits `limit` hits per window and resets at the window boundary", () =>
    Effect.gen(function* () {
      const store = makeMemoryRateLimitStore()
      yield* TestClock.setTime(125_000)
      const decisions = []
      for (let i = 0; i < 3; i++) decisions.push(yield* store.hit("k", 3, 60))
      yield* TestClock.setTime(184_999)
      decisions.push(yield* store.hit("k", 3, 60))
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false])
      expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0])
      expect(decisions[0]!.resetAt).toBe(185)
      expect((yield* store.hit("other", 3, 60)).allowed).toBe(true)
      yield* TestClock.setTime(185_000)
      expect((yield* store.hit("k", 3, 60)).remaining).toBe(2)
    }).pipe(Effect.provide(TestClock.layer()), Effect.runPromise))
})
