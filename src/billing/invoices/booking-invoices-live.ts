import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { BookingInvoices } from "../../enrollment/bookings/invoices.ts"
import { PlansRepo } from "../plans/repo.ts"
import { InvoicesRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * Invoices' answer to bookings' `BookingInvoices` port (src/enrollment/bookings/invoices.ts): an
 * uncompleted booking deleted takes the invoices tied to it and the plans they sold (the
 * visits those plans paid become unpaid), on the caller's transaction. Invoices that money or
 * pay refers to stay, unlinked by the booking's deletion.
 */
export const BookingInvoicesLive = Layer.effect(BookingInvoices)(
  Effect.gen(function* () {
    // Only these services: the caller's fiber keeps its own (the transaction's connection above all).
    const services = Context.pick(SqlClient.SqlClient, InvoicesRepo, PlansRepo)(
      yield* Effect.context<SqlClient.SqlClient | InvoicesRepo | PlansRepo>()
    )
    return {
      removeCreated: (businessId, bookingId) =>
        Effect.gen(function* () {
          const invoices = yield* InvoicesRepo
          const plans = yield* PlansRepo
          const removed = (yield* invoices.ofBooking({ businessId, bookingId })).filter((invoice) => !invoice.kept)
          const now = (yield* currentTime)
          for (const planId of new Set(removed.flatMap((invoice) => invoice.plan_ids))) {
            if (yield* plans.lock({ businessId, id: planId })) yield* plans.delete({ businessId, id: planId, now })
          }
          yield* invoices.deleteMany({ businessId, ids: removed.map((invoice) => invoice.id) })
        }).pipe(Effect.provideContext(services))
    }
  })
)
