import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { PaymentGateway } from "../../src/platform/payments/gateway.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * The sandbox gateway behind the port: charges, refunds and voids on vaulted cards (the
 * documented test numbers), one outcome per idempotency key, state in PostgreSQL. And the
 * card-number leak test: after vaulting with debug logging on, neither the number nor the CVV
 * is in any row of the database nor in anything the server wrote to its output.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let businessId: number
let personId: number
let staffToken: string
const output: Array<string> = []

const CARDS = { ok: "4242424242424242", declines: "4000000000000341", poor: "4000000000009995" } as const
const CVV = "7319"
/** The CVV as a value of its own (not inside an id, a token or a timestamp). */
const CVV_ALONE = new RegExp(`(?<![0-9A-Za-z_.:-])${CVV}(?![0-9A-Za-z_-])`)

const follow = (url: string, method = "GET", body?: string) => {
  const parsed = new URL(url)
  return server.request(method, parsed.pathname + parsed.search, {
    host: parsed.host,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
  })
}

/** The three steps in staff mode; answers the new form's gateway token (read from the database). */
const vault = async (number: string) => {
  const started = await server.request("POST", `/api/v2/desk/people/${personId}/form_of_payments`, {
    token: staffToken,
    body: { form_of_payment: { type: "creditcard" } }
  })
  expect(started.status, started.text).toBe(201)
  const fields = {
    "billing-cc-number": number,
    "billing-cc-exp": "0429",
    "billing-cvv": CVV,
    "billing-first-name": "Lea",
    "billing-last-name": "Kage",
    "billing-postal": "10115"
  }
  const posted = await follow(started.json.form_of_payments[0].form_url, "POST", new URLSearchParams(fields).toString())
  expect(posted.status).toBe(303)
  const done = await follow(posted.headers.location!)
  expect(done.status, done.text).toBe(200)
  const { rows } = await server.pool.query(`select gateway_token from forms_of_payment where business_id = $1 order by id desc limit 1`, [businessId])
  return rows[0].gateway_token as string
}

const gateway = <A, E>(use: (gateway: PaymentGateway["Service"]) => Effect.Effect<A, E>) =>
  server.runtime.runPromise(
    Effect.gen(function* () {
      return yield* use(yield* PaymentGateway)
    })
  )

beforeAll(async () => {
  // Everything the server prints, at debug level, for the leak test.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream)
    vi.spyOn(stream, "write").mockImplementation(((chunk: unknown, ...rest: Array<never>) => {
      output.push(String(chunk))
      return write(chunk as string, ...rest)
    }) as typeof stream.write)
  }
  for (const method of ["log", "info", "debug", "warn", "error"] as const) {
    const original = console[method].bind(console)
    vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
      output.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "))
      original(...args)
    })
  }
  server = await startTestServer({ clock: clock.clock, logLevel: "debug" })
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  personId = (await createPerson(server.pool, businessId)).personId
  const staff = await createPerson(server.pool, businessId, { role: "owner" })
  staffToken = await createToken(server.pool, staff.accountId, businessId)
}, 120_000)

afterAll(async () => {
  vi.restoreAllMocks()
  await server?.close()
})

describe("charges, refunds and voids", () => {
  it("charges a good card once per idempotency key, refunds up to the charge, voids", async () => {
    const token = await vault(CARDS.ok)
    const charge = (key: string, amountCents = 2500) =>
      gateway((g) => g.charge({ businessId, token, amountCents, currency: "USD", idempotencyKey: key, description: "Invoice 1" }))
    const first = await charge("invoice-1-payment-1")
    expect(first._tag).toBe("Succeeded")
    const retried = await charge("invoice-1-payment-1", 9999)
    expect(retried).toEqual(first)
    const { rows } = await server.pool.query(`select amount_cents::int, status from sandbox_gateway_transactions where idempotency_key = 'invoice-1-payment-1'`)
    expect(rows).toEqual([{ amount_cents: 2500, status: "succeeded" }])
    const transactionId = first._tag === "Succeeded" ? first.transactionId : ""

    const refund = (key: string, amountCents: number) => gateway((g) => g.refund({ businessId, transactionId, amountCents, idempotencyKey: key }))
    expect((await refund("r1", 1000))._tag).toBe("Succeeded")
    expect(await refund("r2", 1501)).toEqual({ _tag: "Declined", reason: "amount_exceeds_charge" })
    expect((await refund("r3", 1500))._tag).toBe("Succeeded")
    expect(await refund("r1", 1000)).toEqual(await refund("r1", 1000))

    const other = await charge("invoice-2")
    const otherId = other._tag === "Succeeded" ? other.transactionId : ""
    expect(await gateway((g) => g.void({ businessId, transactionId: otherId }))).toEqual({ _tag: "Voided" })
    expect(await gateway((g) => g.void({ businessId, transactionId: otherId }))).toEqual({ _tag: "Voided" })
    expect(await gateway((g) => g.refund({ businessId, transactionId: otherId, amountCents: 1, idempotencyKey: "r4" }))).toEqual({
      _tag: "Declined",
      reason: "not_refundable"
    })
    // Another business cannot touch it.
    expect(await gateway((g) => g.void({ businessId: businessId + 1000, transactionId }))).toEqual({ _tag: "Declined", reason: "unknown_transaction" })
  })

  it("declines the documented test cards' charges, and unknown tokens", async () => {
    const declines = await vault(CARDS.declines)
    const poor = await vault(CARDS.poor)
    const charge = (token: string, key: string) =>
      gateway((g) => g.charge({ businessId, token, amountCents: 100, currency: "USD", idempotencyKey: key, description: "" }))
    expect(await charge(declines, "d1")).toEqual({ _tag: "Declined", reason: "card_declined" })
    expect(await charge(poor, "d2")).toEqual({ _tag: "Declined", reason: "insufficient_funds" })
    expect(await charge("tok_unknown", "d3")).toEqual({ _tag: "Declined", reason: "invalid_token" })
  })
})

describe("card data never reaches the service", () => {
  it("keeps no card number or CVV in any table nor in the server's output", async () => {
    await vault(CARDS.ok)
    // Every row of every table of the database, as text (what a data dump holds; the machine's
    // pg_dump is older than the embedded server, which ships none).
    const tables = await server.pool.query(
      `select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables
       where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`
    )
    expect(tables.rows.length).toBeGreaterThan(20)
    const dump: Array<string> = []
    for (const { name } of tables.rows) {
      const { rows } = await server.pool.query(`select t::text as row from ${name} t`)
      for (const row of rows) dump.push(row.row)
    }
    const text = dump.join("\n")
    // The dump is real: the card's shown fields are there.
    expect(text).toContain("4242")
    expect(text).toContain("Kage")
    for (const secret of Object.values(CARDS)) expect(text).not.toContain(secret)
    expect(text).not.toMatch(CVV_ALONE)
    expect(text).not.toMatch(/4242[\s-]?4242[\s-]?4242/)

    const logged = output.join("\n")
    expect(logged.length).toBeGreaterThan(0)
    for (const secret of Object.values(CARDS)) expect(logged).not.toContain(secret)
    expect(logged).not.toMatch(CVV_ALONE)
  })
})
