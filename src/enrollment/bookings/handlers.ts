import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { BookingsFrontApi } from "./front.api.ts"
import { BookingsDeskApi } from "./desk.api.ts"
import { addLease, deleteLease, getLease, updateLease } from "./lease-commands.ts"
import { staffCaller } from "../../access/caller.ts"
import { clientCaller } from "../../catalog/services/callers.ts"
import { completeBooking, createBooking, deleteBooking, getBooking } from "./service.ts"

export const BookingsFrontLive = HttpApiBuilder.group(apiOf(BookingsFrontApi), "bookingsFront", (handlers) =>
  handlers
    .handle("create", ({ payload }) => Effect.flatMap(clientCaller, (caller) => createBooking(caller, payload.booking)))
    .handle("get", ({ params }) => Effect.flatMap(clientCaller, (caller) => getBooking(caller, params.id)))
    .handle("complete", ({ params }) => Effect.flatMap(clientCaller, (caller) => completeBooking(caller, params.id)))
    .handle("delete", ({ params }) => Effect.flatMap(clientCaller, (caller) => deleteBooking(caller, params.id)))
    .handle("addLease", ({ params, payload }) => Effect.flatMap(clientCaller, (caller) => addLease(caller, params.booking_id, payload.lease)))
    .handle("getLease", ({ params }) => Effect.flatMap(clientCaller, (caller) => getLease(caller, params.booking_id, params.id)))
    .handle("updateLease", ({ params, payload }) =>
      Effect.flatMap(clientCaller, (caller) => updateLease(caller, params.booking_id, params.id, payload.lease)))
    .handle("deleteLease", ({ params }) => Effect.flatMap(clientCaller, (caller) => deleteLease(caller, params.booking_id, params.id))))

export const BookingsDeskLive = HttpApiBuilder.group(apiOf(BookingsDeskApi), "bookingsDesk", (handlers) =>
  handlers
    .handle("create", ({ payload }) => Effect.flatMap(staffCaller, (caller) => createBooking(caller, payload.booking)))
    .handle("get", ({ params }) => Effect.flatMap(staffCaller, (caller) => getBooking(caller, params.id)))
    .handle("complete", ({ params }) => Effect.flatMap(staffCaller, (caller) => completeBooking(caller, params.id)))
    .handle("delete", ({ params }) => Effect.flatMap(staffCaller, (caller) => deleteBooking(caller, params.id)))
    .handle("addLease", ({ params, payload }) => Effect.flatMap(staffCaller, (caller) => addLease(caller, params.booking_id, payload.lease)))
    .handle("getLease", ({ params }) => Effect.flatMap(staffCaller, (caller) => getLease(caller, params.booking_id, params.id)))
    .handle("updateLease", ({ params, payload }) =>
      Effect.flatMap(staffCaller, (caller) => updateLease(caller, params.booking_id, params.id, payload.lease)))
    .handle("deleteLease", ({ params }) => Effect.flatMap(staffCaller, (caller) => deleteLease(caller, params.booking_id, params.id))))
