import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { filesUnder, root } from "../support/source-files.ts"

/**
 * Issue 30: the README, docs/decisions.md and code comments said "not yet" about things newer
 * code does (balances, eligibility's plan and card checks, the punch and plan webhooks,
 * bookings tied to invoices, the demo's billing). Each of those statements, as it was written,
 * must not come back.
 */
const TEXTS = /\.(ts|md)$/

const STALE: ReadonlyArray<string> = [
  "No invoices or pays yet",
  "No billing yet",
  "account_balance_cents: 0",
  "join the list when billing exists",
  "a resource whose data does not exist yet is a 422",
  "constants until billing or the data lands",
  "enrollments `estimated_amount` 0",
  "the punch, plan and person-plan emitters",
  "billing\n  does not exist",
  "Nobody holds a plan or a card",
  "No late-cancel fee (no billing)",
  "Passes do not exist yet",
  "passes do not exist yet,",
  "they do not exist yet",
  "bookings tied to invoices do not exist yet",
  "notes; billing later"
]

describe("what the docs say is not done yet", () => {
  it("holds none of the statements newer code contradicts", () => {
    const files = ["README.md", ...filesUnder("docs", TEXTS), ...filesUnder("src", TEXTS), ...filesUnder("reports", TEXTS), ...filesUnder("workers", TEXTS)]
    const found = files.flatMap((file) => {
      const text = fs.readFileSync(path.join(root, file), "utf8")
      return STALE.filter((phrase) => text.includes(phrase)).map((phrase) => `${file}: ${phrase}`)
    })
    expect(found).toEqual([])
  })

  it("says what include_balances, eligibility and the billing webhooks do today", () => {
    const decisions = fs.readFileSync(path.join(root, "docs/decisions.md"), "utf8")
    expect(decisions).toMatch(/`include_balances=true` adds `account_balance_cents`, the person's account credit/)
    expect(decisions).toMatch(/`credit_card_required` warns unless the person has a credit card on file/)
    expect(decisions).toMatch(/punch\.created \(src\/billing\/punches\/service\.ts\)/)
  })
})
