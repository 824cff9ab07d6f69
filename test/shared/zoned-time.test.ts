import { describe, expect, it } from "vitest"
import { formatZoned, localAt } from "../../src/shared/zoned-time.ts"

/** Intl alone, one call per instant: what formatZoned answered before it kept offsets by day. */
const reference = (instant: number, timeZone: string): string => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "longOffset"
    })
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value])
  )
  const offset = parts.timeZoneName === "GMT" || parts.timeZoneName === "GMT+00:00" ? "Z" : parts.timeZoneName!.slice(3)
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`
}

const ZONES = ["UTC", "America/Los_Angeles", "Europe/London", "America/St_Johns", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Apia"]

describe("formatZoned", () => {
  it("matches Intl for every zone over years that include offset changes, a skipped day (Apia, 2011) and half-hour shifts", { timeout: 120_000 }, () => {
    const from = Date.parse("2010-06-01T00:00:00Z")
    const to = Date.parse("2012-06-01T00:00:00Z")
    for (const zone of ZONES) {
      for (let instant = from; instant < to; instant += 97 * 60_000 + 13_001) expect(formatZoned(instant, zone), zone).toBe(reference(instant, zone))
    }
  })

  it("matches Intl second by second around a change, in both directions", () => {
    // Los Angeles: 2026-03-08 02:00 PST → 03:00 PDT (10:00Z), 2026-11-01 02:00 PDT → 01:00 PST (09:00Z).
    for (const change of [Date.parse("2026-03-08T10:00:00Z"), Date.parse("2026-11-01T09:00:00Z")]) {
      for (let instant = change - 3_600_000; instant <= change + 3_600_000; instant += 7_000) {
        expect(formatZoned(instant, "America/Los_Angeles")).toBe(reference(instant, "America/Los_Angeles"))
      }
      expect(formatZoned(change - 1000, "America/Los_Angeles")).toBe(reference(change - 1000, "America/Los_Angeles"))
      expect(formatZoned(change, "America/Los_Angeles")).toBe(reference(change, "America/Los_Angeles"))
    }
  })

  it("keeps second precision and the local minute of the day, before 1970 too", () => {
    expect(formatZoned(Date.parse("2026-11-24T18:30:59.999Z"), "America/Los_Angeles")).toBe("2026-11-24T10:30:59-08:00")
    expect(formatZoned(Date.parse("1969-12-31T23:59:59.500Z"), "UTC")).toBe("1969-12-31T23:59:59Z")
    expect(localAt(Date.parse("2026-07-01T06:45:00Z"), "Asia/Kathmandu")).toEqual({ date: "2026-07-01", minutes: 12 * 60 + 30 })
  })

  it("refuses an unknown zone", () => {
    expect(() => formatZoned(0, "Mars/Olympus")).toThrow(RangeError)
  })
})

describe("wall-clock fields", () => {
  it("are Date's own from year 1 to 9999, leap days and century years included", () => {
    const first = Date.parse("0001-01-01T00:00:00Z")
    const last = Date.parse("9999-12-31T23:59:59Z")
    // Every 61st day and 997 s (60,000 instants; each new day asks Intl for its offset once),
    // then the days around leap days and century years.
    const differ: Array<string> = []
    for (let instant = first; instant <= last; instant += 86_400_000 * 61 + 997_000) {
      const expected = `${new Date(instant).toISOString().slice(0, 19)}Z`
      if (formatZoned(instant, "UTC") !== expected && differ.push(expected) >= 10) break
    }
    expect(differ).toEqual([])
    for (const day of ["1900-02-28", "1900-03-01", "2000-02-29", "2024-02-29", "2100-03-01", "1600-02-29"]) {
      expect(formatZoned(Date.parse(`${day}T23:59:59Z`), "UTC")).toBe(`${day}T23:59:59Z`)
    }
  })
})
