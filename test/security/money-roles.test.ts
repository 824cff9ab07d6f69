import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { t } from "../../src/shared/i18n.ts"
import { AUTH_MESSAGES } from "../../src/access/access.ts"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestResponse, apiCaller, followLink } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Who may move money, over HTTP against the real server and PostgreSQL: every desk
 * endpoint that moves money or changes what a client owes, tried by each staff role. A refusal
 * is a 403 with the error model and leaves the ledger (payments, refunds, account credit,
 * gateway transactions, invoices with their items and adjustments, forms of payment, vaulting
 * sessions, setup intents) exactly as it was; an allowed role succeeds. Demoted staff have no
 * staff mode at all (DeskAccess: the `{"error"}` 403 of the authentication rules).
 */
const clock = makeSettableClock("2026-11-02T16:00:00Z")
const ROLES = ["limited", "standard", "manager", "owner", "demoted"] as const
type Role = (typeof ROLES)[number]
const STANDARD_UP: ReadonlyArray<Role> = ["standard", "manager", "owner"]
const MANAGER_UP: ReadonlyArray<Role> = ["manager", "owner"]

let server: TestServer
let businessId: number
let main: number
let cleo: { personId: number; token: string }
let pack: number
let membership: number
let owner: string
let firstCard: number
let secondCard: number
const tokens = {} as Record<Role, string>

const desk = apiCaller("/api/v2/desk", () => ({ request: server.request, token: owner }))

const ok = (response: TestResponse, status: number) => {
  expect(response.status, response.text).toBe(status)
  return response.json
}

const follow = (url: string, method?: string, body?: string) => followLink(server.request, url, method, body)

/** The three vaulting steps as the owner; answers the new form's id. */
const vault = async (number: string) => {
  const started = ok(await desk("POST", `/people/${cleo.personId}/form_of_payments`, { form_of_payment: { type: "creditcard" } }), 201)
  const fields = { "billing-cc-number": number, "billing-cc-exp": "1230", "billing-cvv": "123", "billing-first-name": "Cleo", "billing-last-name": "Client", "billing-postal": "94110" }
  const posted = await follow(started.form_of_payments[0].form_url, "POST", new URLSearchParams(fields).toString())
  expect(posted.status, posted.text).toBe(303)
  expect((await follow(posted.headers.location!)).status).toBe(200)
  const list = ok(await desk("GET", `/people/${cleo.personId}/form_of_payments`), 200)
  return Math.max(...list.form_of_payments.map((f: { id: number }) => f.id))
}

/** A setup intent confirmed with a test card at the sandbox processor, as the owner. */
const confirmedIntent = async () => {
  const intent = ok(await desk("GET", "/processor_connect/payment_methods/new"), 200).setup_intents[0]
  const confirmUrl = `${intent.confirm_url}?client_secret=${encodeURIComponent(intent.client_secret)}`
  const card = { "billing-cc-number": "5555555555554444", "billing-cc-exp": "0328", "billing-cvv": "321", "billing-first-name": "Connie", "billing-last-name": "Nect" }
  expect((await follow(confirmUrl, "POST", new URLSearchParams(card).toString())).status).toBe(200)
  return intent.id as string
}

// The owner's fixtures, fresh for each try.
const cart = async (product = pack) => ok(await desk("POST", "/invoices", { invoice: { payer_id: cleo.personId, plan_products: [{ id: product }] } }), 201).invoices[0] as { id: number; invoice_items: Array<{ id: number }> }
const open = async (product = pack) => {
  const invoice = await cart(product)
  ok(await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "open" } }), 200)
  return invoice
}
const payCash = async (invoiceId: number, amount: number) =>
  ok(await desk("POST", `/invoices/${invoiceId}/payments`, { payment: { payment_method: "cash", amount_cents: amount } }), 201).payments[0].id as number
/** A closed invoice paid in cash: the invoice and its payment. */
const paidInvoice = async () => {
  const invoice = await cart()
  return { invoice: invoice.id, payment: await payCash(invoice.id, 10000) }
}
const cashRefund = async () => {
  const { invoice, payment } = await paidInvoice()
  const refund = ok(await desk("POST", `/invoices/${invoice}/payments/${payment}/refunds`, { refund: { amount_cents: 1000, payment_type_id: 2 } }), 201)
  return refund.refunds[0].id as number
}

/** Everything a money endpoint could change, for this business. */
const ledger = async () => {
  const rows = async (sql: string) => (await server.pool.query(sql, [businessId])).rows
  return {
    payments: await rows(`select id, state, amount_cents, voided_at from payments where business_id = $1 order by id`),
    refunds: await rows(`select id, state, amount_cents, voided_at from refunds where business_id = $1 order by id`),
    credit: await rows(`select id, amount_cents from account_credit_entries where business_id = $1 order by id`),
    gateway: await rows(`select id, kind, status from sandbox_gateway_transactions where business_id = $1 order by id`),
    invoices: await rows(`select id, state, total_cents, coupon_id, location_id, receipt_email, updated_at from invoices where business_id = $1 order by id`),
    items: await rows(`select id, canceled_at, total_cents from invoice_items where business_id = $1 order by id`),
    adjustments: await rows(`select id, type, requested_cents, percent, initial_punchcard_count from invoice_item_adjustments where business_id = $1 order by id`),
    forms: await rows(`select id, autobill from forms_of_payment where business_id = $1 order by id`),
    vaultings: await rows(`select id from form_of_payment_vaultings where business_id = $1 order by id`),
    intents: await rows(`select id from sandbox_gateway_setup_intents where business_id = $1 order by id`),
    plans: await rows(`select id from plans where business_id = $1 order by id`)
  }
}

interface Request {
  readonly method: string
  readonly path: string
  readonly body?: unknown
  /** The refusal a standard staff member gets when it depends on the record (default: manager_required). */
  readonly standardRefusal?: string
}
interface Case {
  readonly name: string
  readonly allowed: ReadonlyArray<Role>
  readonly status: number
  readonly prepare: () => Promise<Request>
  /** What an allowed call must have done, beyond its status. */
  readonly check?: (json: any, request: Request) => Promise<void> | void
}

const managerRequired = t("en", "manager_required")
const standardRequired = t("en", "standard_staff_required")
const owed = (id: number, state: string) => t("en", "invoice_owed_manager_required", { id, state })

const CASES: ReadonlyArray<Case> = [
  // Payments
  {
    name: "take a cash payment on a cart (POST invoices/:id/payments)",
    allowed: STANDARD_UP,
    status: 201,
    prepare: async () => ({ method: "POST", path: `/invoices/${(await cart()).id}/payments`, body: { payment: { payment_method: "cash", amount_cents: 2500 } } }),
    check: (json) => expect(json.payments[0]).toMatchObject({ state: "settled", amount_cents: 2500 })
  },
  {
    name: "charge the client's card on an open invoice (POST invoices/:id/payments)",
    allowed: STANDARD_UP,
    status: 201,
    prepare: async () => ({
      method: "POST",
      path: `/invoices/${(await open()).id}/payments`,
      body: { payment: { payment_method: "creditcard", amount_cents: 10000, form_of_payment_id: firstCard } }
    }),
    check: (json) => expect(json.payments[0]).toMatchObject({ state: "settled", amount_cents: 10000, description: "visa ending in 4242" })
  },
  {
    name: "delete a payment in checkout (DELETE invoices/:id/payments/:payment_id)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await cart()
      return { method: "DELETE", path: `/invoices/${invoice.id}/payments/${await payCash(invoice.id, 3000)}` }
    },
    check: (json) => expect(json.payments[0]).toMatchObject({ state: "voided" })
  },
  {
    name: "refund a payment (POST invoices/:id/payments/:payment_id/refunds)",
    allowed: MANAGER_UP,
    status: 201,
    prepare: async () => {
      const { invoice, payment } = await paidInvoice()
      return { method: "POST", path: `/invoices/${invoice}/payments/${payment}/refunds`, body: { refund: { amount_cents: 4000, payment_type_id: 5 } } }
    },
    check: (json) => expect(json.refunds[0]).toMatchObject({ amount_cents: 4000 })
  },
  {
    name: "void a payment (POST payments/:id/voids)",
    allowed: MANAGER_UP,
    status: 201,
    prepare: async () => ({ method: "POST", path: `/payments/${(await paidInvoice()).payment}/voids`, body: { void: {} } }),
    check: (json) => expect(json.payments[0]).toMatchObject({ state: "voided" })
  },
  {
    name: "void a refund (POST refunds/:id/voids)",
    allowed: MANAGER_UP,
    status: 201,
    prepare: async () => ({ method: "POST", path: `/refunds/${await cashRefund()}/voids` }),
    check: (json) => expect(json.refunds[0]).toMatchObject({ state: "voided" })
  },
  // Invoices: selling in checkout
  {
    name: "create an invoice (POST invoices)",
    allowed: STANDARD_UP,
    status: 201,
    prepare: async () => ({ method: "POST", path: "/invoices", body: { invoice: { payer_id: cleo.personId, plan_products: [{ id: pack }] } } }),
    check: (json) => expect(json.invoices[0]).toMatchObject({ state: "cart", total_cents: 10000 })
  },
  {
    name: "open a cart (PUT invoices/:id state_event open)",
    allowed: STANDARD_UP,
    status: 200,
    prepare: async () => ({ method: "PUT", path: `/invoices/${(await cart()).id}`, body: { invoice: { state_event: "open" } } }),
    check: (json) => expect(json.invoices[0].state).toBe("open")
  },
  {
    name: "cancel a cart (PUT invoices/:id state_event canceled)",
    allowed: STANDARD_UP,
    status: 200,
    prepare: async () => ({ method: "PUT", path: `/invoices/${(await cart()).id}`, body: { invoice: { state_event: "canceled" } } }),
    check: (json) => expect(json.invoices[0].state).toBe("canceled")
  },
  {
    name: "add an item to a cart (POST invoices/:id/invoice_items)",
    allowed: STANDARD_UP,
    status: 201,
    prepare: async () => ({ method: "POST", path: `/invoices/${(await cart()).id}/invoice_items`, body: { plan_product: { id: pack } } }),
    check: (json) => expect(json.invoices[0].total_cents).toBe(20000)
  },
  {
    name: "remove an item from a cart (DELETE invoices/:id/invoice_items/:item)",
    allowed: STANDARD_UP,
    status: 200,
    prepare: async () => {
      const invoice = await cart()
      return { method: "DELETE", path: `/invoices/${invoice.id}/invoice_items/${invoice.invoice_items[0]!.id}` }
    },
    check: (json) => expect(json.invoices[0].total_cents).toBe(0)
  },
  // Invoices: what the client owes (open, on hold)
  {
    name: "put an open invoice on hold (PUT state_event on_hold)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await open()
      return { method: "PUT", path: `/invoices/${invoice.id}`, body: { invoice: { state_event: "on_hold" } }, standardRefusal: owed(invoice.id, "open") }
    },
    check: (json) => expect(json.invoices[0].state).toBe("on_hold")
  },
  {
    name: "reopen an invoice on hold (PUT state_event open)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await open()
      ok(await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "on_hold" } }), 200)
      return { method: "PUT", path: `/invoices/${invoice.id}`, body: { invoice: { state_event: "open" } }, standardRefusal: owed(invoice.id, "on_hold") }
    },
    check: (json) => expect(json.invoices[0].state).toBe("open")
  },
  {
    name: "cancel an open invoice (PUT state_event canceled)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await open()
      return { method: "PUT", path: `/invoices/${invoice.id}`, body: { invoice: { state_event: "canceled" } }, standardRefusal: owed(invoice.id, "open") }
    },
    check: (json) => expect(json.invoices[0].state).toBe("canceled")
  },
  {
    name: "move an open invoice's total: its location (PUT location_id)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await open()
      return { method: "PUT", path: `/invoices/${invoice.id}`, body: { invoice: { location_id: main } }, standardRefusal: owed(invoice.id, "open") }
    },
    check: (json) => expect(json.invoices[0].location_id ?? json.invoices[0].location?.id).toBe(main)
  },
  {
    name: "set an open invoice's receipt e-mail (PUT receipt_email)",
    allowed: STANDARD_UP,
    status: 200,
    prepare: async () => ({ method: "PUT", path: `/invoices/${(await open()).id}`, body: { invoice: { send_receipt: true, receipt_email: "cleo@example.test" } } }),
    check: (json) => expect(json.invoices[0].receipt_email).toBe("cleo@example.test")
  },
  {
    name: "add an item to an open invoice (POST invoice_items)",
    allowed: MANAGER_UP,
    status: 201,
    prepare: async () => {
      const invoice = await open()
      return { method: "POST", path: `/invoices/${invoice.id}/invoice_items`, body: { plan_product: { id: pack } }, standardRefusal: owed(invoice.id, "open") }
    },
    check: (json) => expect(json.invoices[0].total_cents).toBe(20000)
  },
  {
    name: "remove an item from an open invoice (DELETE invoice_items/:item)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await open()
      return { method: "DELETE", path: `/invoices/${invoice.id}/invoice_items/${invoice.invoice_items[0]!.id}`, standardRefusal: owed(invoice.id, "open") }
    },
    check: (json) => expect(json.invoices[0].total_cents).toBe(0)
  },
  // Invoices: prices set by hand
  {
    name: "prorate an item (POST prorates)",
    allowed: MANAGER_UP,
    status: 201,
    prepare: async () => {
      const invoice = await cart(membership)
      return { method: "POST", path: `/invoices/${invoice.id}/invoice_items/${invoice.invoice_items[0]!.id}/prorates`, body: { prorate: { amount_cents: 3000 } } }
    },
    check: (json) => expect(json.invoices[0].total_cents).toBe(9000)
  },
  {
    name: "remove a proration (DELETE prorates)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await cart(membership)
      const path = `/invoices/${invoice.id}/invoice_items/${invoice.invoice_items[0]!.id}/prorates`
      ok(await desk("POST", path, { prorate: { amount_cents: 3000 } }), 201)
      return { method: "DELETE", path }
    },
    check: (json) => expect(json.invoices[0].total_cents).toBe(12000)
  },
  {
    name: "discount an item (POST discounts)",
    allowed: MANAGER_UP,
    status: 201,
    prepare: async () => {
      const invoice = await cart()
      return { method: "POST", path: `/invoices/${invoice.id}/invoice_items/${invoice.invoice_items[0]!.id}/discounts`, body: { discount: { percent: 50 } } }
    },
    check: (json) => expect(json.invoices[0].total_cents).toBe(5000)
  },
  {
    name: "remove an item's discount (DELETE discounts)",
    allowed: MANAGER_UP,
    status: 200,
    prepare: async () => {
      const invoice = await cart()
      const path = `/invoices/${invoice.id}/invoice_items/${invoice.invoice_items[0]!.id}/discounts`
      ok(await desk("POST", path, { discount: { amount_cents: 1000 } }), 201)
      return { method: "DELETE", path }
    },
    check: (json) => expect(json.invoices[0].total_cents).toBe(10000)
  },
  // Cards on file
  {
    name: "begin vaulting a card for a client (POST people/:id/form_of_payments)",
    allowed: STANDARD_UP,
    status: 201,
    prepare: async () => ({ method: "POST", path: `/people/${cleo.personId}/form_of_payments`, body: { form_of_payment: { type: "creditcard" } } }),
    check: (json) => expect(json.form_of_payments[0].form_url).toEqual(expect.any(String))
  },
  {
    name: "choose the client's autobill card (PUT people/:id/form_of_payments/:id)",
    allowed: STANDARD_UP,
    status: 200,
    prepare: async () => {
      ok(await desk("PUT", `/people/${cleo.personId}/form_of_payments/${firstCard}`, { form_of_payment: { autobill: true } }), 200)
      return { method: "PUT", path: `/people/${cleo.personId}/form_of_payments/${secondCard}`, body: { form_of_payment: { autobill: true } } }
    },
    check: (json) => expect(json.form_of_payments[0]).toMatchObject({ id: secondCard, autobill: true })
  },
  {
    name: "start a processor setup intent (GET processor_connect/payment_methods/new)",
    allowed: STANDARD_UP,
    status: 200,
    prepare: async () => ({ method: "GET", path: "/processor_connect/payment_methods/new" }),
    check: (json) => expect(json.setup_intents[0].client_secret).toEqual(expect.any(String))
  },
  {
    name: "save a processor payment method for a client (POST processor_connect/payment_methods)",
    allowed: STANDARD_UP,
    status: 201,
    prepare: async () => ({
      method: "POST",
      path: "/processor_connect/payment_methods",
      body: { payment_method: { payment_method_id: await confirmedIntent(), person_id: cleo.personId } }
    }),
    check: (json) => expect(json.payment_methods[0].form_of_payment_id).toEqual(expect.any(Number))
  }
]

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock, worker: false })
  businessId = (await createBusiness(server.pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })).id
  main = (await createLocation(server.pool, businessId, { name: "Main", time_zone: "America/Los_Angeles" })).id
  for (const role of ROLES) {
    const person = await createPerson(server.pool, businessId, { role, first_name: role })
    tokens[role] = await createToken(server.pool, person.accountId, businessId)
  }
  owner = tokens.owner
  const client = await createPerson(server.pool, businessId, { first_name: "Cleo", last_name: "Client" })
  cleo = { personId: client.personId, token: await createToken(server.pool, client.accountId, businessId) }
  pack = (await createPlanProduct(server.pool, businessId, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
  membership = (await createPlanProduct(server.pool, businessId, { kind: "membership", name: "Eight a month", price_cents: 12000, count: 8, limit_period: "month" })).id
  firstCard = await vault("4242424242424242")
  secondCard = await vault("5555555555554444")
}, 180_000)

afterAll(async () => server?.close())

describe.each(CASES)("$name", (c) => {
  it.each(ROLES)("%s", async (role) => {
    const request = await c.prepare()
    const before = await ledger()
    const response = await desk(request.method, request.path, request.body, tokens[role])
    if (c.allowed.includes(role)) {
      await c.check?.(ok(response, c.status), request)
      return
    }
    expect(response.status, response.text).toBe(403)
    if (role === "demoted") expect(response.json).toEqual({ error: AUTH_MESSAGES.demoted })
    // Limited staff meet the endpoint's own rule first: standard staff or higher, unless only managers may ever call it.
    else if (role === "limited") expect(response.json).toEqual({ errors: [refusesStandardAlways(c, request) ? managerRequired : standardRequired] })
    else expect(response.json).toEqual({ errors: [request.standardRefusal ?? managerRequired] })
    expect(await ledger()).toEqual(before)
  })
})

/** Endpoints guarded by requireManagerOrHigher itself (no record-dependent rule). */
const refusesStandardAlways = (c: Case, request: Request) => !c.allowed.includes("standard") && request.standardRefusal === undefined

describe("around the rule", () => {
  it("a refused caller cannot replay a manager's Idempotency-Key to get the stored answer", async () => {
    const { invoice, payment } = await paidInvoice()
    const path = `/invoices/${invoice}/payments/${payment}/refunds`
    const body = { refund: { amount_cents: 1500, payment_type_id: 2 } }
    ok(await desk("POST", path, body, { token: tokens.manager, headers: { "idempotency-key": `refund-${payment}` } }), 201)
    const before = await ledger()
    const replay = await desk("POST", path, body, { token: tokens.standard, headers: { "idempotency-key": `refund-${payment}` } })
    expect(replay.status, replay.text).toBe(403)
    expect(replay.json).toEqual({ errors: [managerRequired] })
    expect(await ledger()).toEqual(before)
  })

  it("translates the refusals (X-FD-Locale)", async () => {
    const invoice = await open()
    const german = { "x-fd-locale": "de" }
    const limited = await desk("POST", `/invoices/${invoice.id}/payments`, { payment: { payment_method: "cash", amount_cents: 100 } }, { token: tokens.limited, headers: german })
    expect(limited.json).toEqual({ errors: [t("de", "standard_staff_required")] })
    const standard = await desk("PUT", `/invoices/${invoice.id}`, { invoice: { state_event: "canceled" } }, { token: tokens.standard, headers: german })
    expect(standard.status).toBe(403)
    expect(standard.json).toEqual({ errors: [t("de", "invoice_owed_manager_required", { id: invoice.id, state: "open" })] })
    expect(standard.json.errors[0]).toMatch(/^Rechnung \d+ ist open: Nur Manager/)
  })

  it("leaves reads to every staff member and client mode as it was: a client pays their own invoice by card", async () => {
    const invoice = await cart()
    ok(await desk("GET", `/invoices/${invoice.id}`, undefined, tokens.limited), 200)
    ok(await desk("GET", `/invoices/${invoice.id}/payment_methods`, undefined, tokens.limited), 200)
    ok(await desk("GET", `/people/${cleo.personId}/form_of_payments`, undefined, tokens.limited), 200)
    const paid = await server.request("POST", `/api/v2/front/invoices/${invoice.id}/payments`, {
      token: cleo.token,
      body: { payment: { payment_method: "creditcard", amount_cents: 10000, form_of_payment_id: firstCard } }
    })
    expect(ok(paid, 201).payments[0]).toMatchObject({ state: "settled", amount_cents: 10000 })
  })

  it("documents who may call each guarded endpoint in OpenAPI (403 listed, the rule in the description)", async () => {
    const spec = (await server.request("GET", "/api/openapi.json")).json
    const operation = (path: string, method: string) => spec.paths[path][method]
    for (const [path, method, who] of [
      ["/api/v2/desk/invoices/{invoice_id}/payments", "post", /Standard staff, managers and owners/],
      ["/api/v2/desk/invoices/{invoice_id}/payments/{payment_id}/refunds", "post", /Managers and owners only/],
      ["/api/v2/desk/payments/{payment_id}/voids", "post", /Managers and owners only/],
      ["/api/v2/desk/invoices/{invoice_id}", "put", /open or on hold, only managers and owners/],
      ["/api/v2/desk/invoices/{invoice_id}/invoice_items/{invoice_item_id}/discounts", "post", /Managers and owners only/]
    ] as const) {
      expect(Object.keys(operation(path, method).responses), path).toContain("403")
      expect(operation(path, method).description, path).toMatch(who)
    }
    expect(Object.keys(operation("/api/v2/front/invoices/{invoice_id}/payments", "post").responses)).not.toContain("403")
    expect(Object.keys(operation("/api/v2/front/processor_connect/payment_methods", "post").responses)).not.toContain("403")
  })
})
