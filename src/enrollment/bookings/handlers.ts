import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { BookingsFrontApi } from "./front.api.ts"
import { BookingsDeskApi } from "./desk.api.ts"
import { addLease, deleteLease, getLease, updateLease } from "./lease-commands.ts"
import { deskCaller, frontCaller } from "./lookup.ts"
import { completeBooking, createBooking, deleteBooking, getBooking } from "./service.ts"

export const BookingsFrontLive = HttpApiBuilder.group(apiOf(BookingsFrontApi), "bookingsFront", (handlers) =>
  handlers
    .handle("create", ({ payload }) => Effect.flatMap(frontCaller, (caller) => createBooking(caller, payload.booking)))
    .handle("get", ({ params }) => Effect.flatMap(frontCaller, (caller) => getBooking(caller, params.id)))
    .handle("complete", ({ params }) => Effect.flatMap(frontCaller, (caller) => completeBooking(caller, params.id)))
    .handle("delete", ({ params }) => Effect.flatMap(frontCaller, (caller) => deleteBooking(caller, params.id)))
    .handle("addLease", ({ params, payload }) => Effect.flatMap(frontCaller, (caller) => addLease(caller, params.booking_id, payload.lease)))
    .handle("getLease", ({ params }) => Effect.flatMap(frontCaller, (caller) => getLease(caller, params.booking_id, params.id)))
    .handle("updateLease", ({ params, payload }) =>
      Effect.flatMap(frontCaller, (caller) => updateLease(caller, params.booking_id, params.id, payload.lease)))
    .handle("deleteLease", ({ params }) => Effect.flatMap(frontCaller, (caller) => deleteLease(caller, params.booking_id, params.id))))

export const BookingsDeskLive = HttpApiBuilder.group(apiOf(BookingsDeskApi), "bookingsDesk", (handlers) =>
  handlers
    .handle("create", ({ payload }) => Effect.flatMap(deskCaller, (caller) => createBooking(caller, payload.booking)))
    .handle("get", ({ params }) => Effect.flatMap(deskCaller, (caller) => getBooking(caller, params.id)))
    .handle("complete", ({ params }) => Effect.flatMap(deskCaller, (caller) => completeBooking(caller, params.id)))
    .handle("delete", ({ params }) => Effect.flatMap(deskCaller, (caller) => deleteBooking(caller, params.id)))
    .handle("addLease", ({ params, payload }) => Effect.flatMap(deskCaller, (caller) => addLease(caller, params.booking_id, payload.lease)))
    .handle("getLease", ({ params }) => Effect.flatMap(deskCaller, (caller) => getLease(caller, params.booking_id, params.id)))
    .handle("updateLease", ({ params, payload }) =>
      Effect.flatMap(deskCaller, (caller) => updateLease(caller, params.booking_id, params.id, payload.lease)))
    .handle("deleteLease", ({ params }) => Effect.flatMap(deskCaller, (caller) => deleteLease(caller, params.booking_id, params.id))))
