import { Context, type Effect } from "effect"

/**
 * What bookings ask of billing when an uncompleted booking is deleted (spec: "Deleting an
 * uncompleted booking removes the booking and the leases, visits, plans and invoices it
 * created"). Invoices sit above bookings, so bookings declares the question and
 * src/billing/invoices/booking-invoices-live.ts answers it; provided in src/app/layers.ts. Runs inside the
 * caller's transaction: the booking and what it created go together or not at all.
 */
export class BookingInvoices extends Context.Service<BookingInvoices, {
  /**
   * Removes the invoices tied to the booking and the plans they created. An invoice that moved
   * money or recorded pay (a payment of any state, a staff pay, a billing period) is kept as the
   * money's record: deleting the booking only unlinks it.
   */
  readonly removeCreated: (businessId: number, bookingId: number) => Effect.Effect<void>
}>()("studio/BookingInvoices") {}
