import { Effect, Layer, Schema } from "effect"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { InvoiceCreateInput } from "../../src/billing/invoices/model.ts"
import { PaymentBody } from "../../src/billing/invoices/payments-model.ts"
import { BookingsResponse, DeskBookingInput } from "../../src/enrollment/bookings/model.ts"
import { formatTimestamp } from "../../src/shared/schemas.ts"
import { floorServer, runFloor } from "./floor-server.ts"

/**
 * The write path's floor behind HTTP: what the booking and the checkout could reach if each
 * command were nothing but its one-round-trip database function (bench/support/write-baselines.ts)
 * behind the stack the service is built on. The service's own request bodies are decoded with
 * its schemas (`POST /api/v2/desk/bookings`, `POST /api/v2/desk/invoices`, `POST
 * /api/v2/desk/invoices/:id/payments`) on the smallest Effect HttpApi server and SQL client,
 * without the request pipeline or access middleware: no token, tenancy, rate limit, locale,
 * log or idempotency key. A booking calls `bench_book`; a checkout's invoice calls
 * `bench_checkout` (the invoice, its item, payment and plan) and its payment answers without a
 * statement; with CHECKOUT_FUNCTIONS=rules the invoice calls `bench_invoice_rules` and the payment
 * `bench_pay_rules` (the checkout with the service's reads and rules, one call per request).
 * Answers are the fields a client reads next, not the service's whole documents.
 * Anything the service does beyond this costs throughput, so the service cannot pass it: the
 * benches print it beside the service to say where a ratio target sits against it.
 * BUSINESS_ID and STAFF_MEMBER_ID (the booking's staff) are read once; BOOK_FUNCTION names the
 * booking's function (`bench_book`, or `bench_book_rules` for the floor with the service's rules);
 * prints `ready <port>`.
 */
const businessId = Number(process.env.BUSINESS_ID)
const staffMemberId = Number(process.env.STAFF_MEMBER_ID)
const bookFunction = process.env.BOOK_FUNCTION === "bench_book_rules" ? "bench_book_rules" : "bench_book"
const checkoutRules = process.env.CHECKOUT_FUNCTIONS === "rules"
if (!Number.isSafeInteger(businessId) || !Number.isSafeInteger(staffMemberId)) throw new Error("BUSINESS_ID and STAFF_MEMBER_ID are required")

const Created = Schema.Struct({ id: Schema.Int, total_cents: Schema.Int })

const FloorApi = HttpApi.make("floor-write").add(
  HttpApiGroup.make("writes")
    .add(HttpApiEndpoint.post("book", "/api/v2/desk/bookings", {
      payload: Schema.Struct({ booking: DeskBookingInput }),
      success: BookingsResponse.pipe(HttpApiSchema.status(201))
    }))
    .add(HttpApiEndpoint.post("invoice", "/api/v2/desk/invoices", {
      payload: Schema.Struct({ invoice: InvoiceCreateInput }),
      success: Schema.Struct({ invoices: Schema.Array(Created) }).pipe(HttpApiSchema.status(201))
    }))
    .add(HttpApiEndpoint.post("pay", "/api/v2/desk/invoices/:invoice_id/payments", {
      params: Schema.Struct({ invoice_id: Schema.String }),
      payload: PaymentBody,
      success: Schema.Struct({ payments: Schema.Array(Created) }).pipe(HttpApiSchema.status(201))
    }))
)

const WritesLive = HttpApiBuilder.group(FloorApi, "writes", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // The staff member's own person, which the service knows from the token (the invoice's `created_by`).
    const [staff] = yield* sql<{ person_id: number }>`select person_id from staff_members where business_id = ${businessId} and id = ${staffMemberId}`.pipe(Effect.orDie)
    return handlers
      .handle("book", ({ payload }) =>
        Effect.gen(function* () {
          const lease = payload.booking.leases![0]!
          const person = (lease.person as { readonly id: number }).id
          const [row] = yield* sql<{ id: number }>`select ${sql.literal(bookFunction)}(${businessId}, ${lease.event_occurrence_id!}, ${person}, ${staffMemberId}) as id`
          const now = formatTimestamp(new Date())
          return {
            bookings: [{
              id: row!.id, state: "completed" as const, expires_at: now, completed_at: now, idempotency_token: null,
              person_id: null, created_at: now, updated_at: now, leases: []
            }]
          }
        }).pipe(Effect.orDie))
      .handle("invoice", ({ payload }) =>
        Effect.gen(function* () {
          const payer = payload.invoice.payer_id!
          const product = payload.invoice.plan_products![0]!.id!
          if (checkoutRules) {
            const [row] = yield* sql<{ id: number; total_cents: number }>`select * from bench_invoice_rules(${businessId}, ${payer}, ${product}, ${staff!.person_id})`
            return { invoices: [{ id: row!.id, total_cents: row!.total_cents }] }
          }
          const [row] = yield* sql<{ id: number }>`select bench_checkout(${businessId}, ${payer}, ${product}) as id`
          return { invoices: [{ id: row!.id, total_cents: 1 }] }
        }).pipe(Effect.orDie))
      .handle("pay", ({ params, payload }) =>
        checkoutRules
          ? Effect.gen(function* () {
            const amount = (payload.payment ?? payload).amount_cents!
            const [row] = yield* sql<{ id: number }>`select bench_pay_rules(${businessId}, ${Number(params.invoice_id)}, ${amount}, ${staffMemberId}) as id`
            return { payments: [{ id: row!.id, total_cents: amount }] }
          }).pipe(Effect.orDie)
          : Effect.succeed({ payments: [{ id: Number(params.invoice_id), total_cents: 1 }] }))
  }))

runFloor(floorServer(FloorApi, WritesLive, Layer.empty))
