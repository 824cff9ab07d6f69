import { Effect } from "effect"
import { EventOccurrencesRepo } from "../../schedule/event-occurrences/repo.ts"
import { type PreparedPerson, prepareAttributes } from "../../identity/people/attributes.ts"
import { PeopleRepo } from "../../identity/people/repo.ts"
import { type Caller, householdOf, isFrontCaller, personOf } from "../../access/caller.ts"
import type { ServiceRow } from "../../catalog/services/model.ts"
import { ServicesRepo } from "../../catalog/services/repo.ts"
import type { Message } from "../../shared/errors.ts"
import type { DeskLeasePerson, LeaseInput, LeaseKind } from "./model.ts"
import { BookingsRepo } from "./repo.ts"
import { BookingRefusals } from "./refusals.ts"
import { VisitRefusals } from "../visits/refusals.ts"

/**
 * Lease plans: from a request's lease shape to what it will hold. Resolving only reads and
 * collects one message per failed rule (so a booking's 422 lists every lease's problems);
 * writing (leases.ts) happens once everything passed, in the caller's transaction.
 */

export type PersonPlan =
  | { readonly _tag: "None" }
  | { readonly _tag: "Existing"; readonly id: number }
  | { readonly _tag: "New"; readonly prepared: PreparedPerson; readonly field: string; readonly newClientPasses: boolean; id?: number }

export interface LeasePlan {
  readonly kind: LeaseKind
  readonly service: ServiceRow
  readonly event_id: number | null
  readonly staff_member_id: number | null
  readonly location_id: number | null
  readonly start_at: Date | null
  readonly recurring: boolean
  /** The occurrences to hold; an appointment's is created when written. */
  readonly occurrenceIds: ReadonlyArray<number>
  readonly person: PersonPlan
}

/** Per request: people named twice by a new e-mail are created once. */
export interface ResolveContext {
  readonly businessId: number
  readonly caller: Caller
  readonly now: Date
  readonly claimedEmails: Set<string>
  readonly newPeople: Map<string, PersonPlan>
}

const given = <A>(value: A | null | undefined): value is A => value !== undefined && value !== null

const serviceScope = (caller: Caller) => (isFrontCaller(caller) ? caller : ({ _tag: "Staff", includeHidden: true } as const))

/**
 * Client mode keeps to what a client may book online: not ended, not inside the service's
 * blackout window, a service that takes online bookings. Staff may book any session not ended.
 */
const timingProblems = (service: ServiceRow, startAt: Date, endAt: Date | null, caller: Caller, now: Date): Array<Message> => {
  const problems: Array<Message> = []
  const nowMs = now.getTime()
  if ((endAt ?? startAt).getTime() <= nowMs) problems.push(VisitRefusals.eligibilityInThePast.message())
  else if (isFrontCaller(caller) && nowMs >= startAt.getTime() - service.enrollment_window_blackout_minutes * 60_000) {
    problems.push(VisitRefusals.eligibilityInsideBlackoutWindow.message())
  }
  if (isFrontCaller(caller) && !service.online_booking) problems.push(VisitRefusals.eligibilityClientModeBookingNotAllowed.message())
  return problems
}

/** The attendee of a lease: client mode the token's person or a dependent (else 404), staff mode by id, e-mail or new. */
export const resolvePerson = Effect.fn("Leases.resolvePerson")(function* (
  context: ResolveContext,
  person: LeaseInput["person"] | { readonly id: number } | null | undefined,
  field: string,
  messages: Array<Message>
) {
  const none: PersonPlan = { _tag: "None" }
  if (!given(person)) return { plan: none, notFound: undefined as number | undefined }
  const people = yield* PeopleRepo
  if (isFrontCaller(context.caller)) {
    const id = (person as { readonly id: number }).id
    if (!householdOf(context.caller).includes(id)) return { plan: none, notFound: id }
    return { plan: { _tag: "Existing", id } as PersonPlan, notFound: undefined }
  }
  const desk = person as DeskLeasePerson
  if (given(desk.id)) {
    const live = yield* people.existingIds({ businessId: context.businessId, ids: [desk.id] })
    if (!live.has(desk.id)) messages.push(BookingRefusals.fieldIdNotFound.message({ field: `${field}.id`, id: desk.id }))
    return { plan: { _tag: "Existing", id: desk.id } as PersonPlan, notFound: undefined }
  }
  const email = desk.email?.trim() ?? ""
  if (email === "") {
    const naming = given(desk.first_name) || given(desk.last_name)
    messages.push(BookingRefusals.fieldRequired.message({ field: naming ? `${field}.email` : `${field}.id` }))
    return { plan: none, notFound: undefined }
  }
  const existing = (yield* people.idByEmail({ businessId: context.businessId, email }))?.id
  if (existing !== undefined) return { plan: { _tag: "Existing", id: existing } as PersonPlan, notFound: undefined }
  const planned = context.newPeople.get(email.toLowerCase())
  if (planned) return { plan: planned, notFound: undefined }
  const prepared = yield* prepareAttributes(
    context.businessId,
    {
      first_name: desk.first_name ?? undefined,
      last_name: desk.last_name ?? undefined,
      email,
      phone: desk.phone ?? undefined,
      ...(desk.send_invite !== undefined ? { send_invite: desk.send_invite } : {})
    },
    { prefix: `${field}.`, defaults: { location_id: null, joined_at: context.now }, claimedEmails: context.claimedEmails },
    messages
  )
  // The spec: `skip_new_client_passes` true gives the new person the business's complimentary passes.
  const plan: PersonPlan = { _tag: "New", prepared, field: `${field}.`, newClientPasses: desk.skip_new_client_passes === true }
  context.newPeople.set(email.toLowerCase(), plan)
  return { plan, notFound: undefined }
})

type ShapeField = "staff_member_id" | "location_id" | "start_at" | "recurring"

/** What the resolver of each lease shape shares: the body, where refusals go, and the checks all shapes make. */
interface Shape {
  readonly context: ResolveContext
  readonly input: LeaseInput
  readonly field: (name: string) => string
  /** The lease's messages, in order: its person's first, then its shape's. */
  readonly problems: Array<Message>
  readonly notAllowed: (names: ReadonlyArray<ShapeField>) => void
  readonly serviceOf: (id: number) => Effect.Effect<ServiceRow | undefined>
  readonly wrongType: (name: string, id: number, type: string) => void
  readonly base: Pick<LeasePlan, "event_id" | "staff_member_id" | "location_id" | "start_at" | "recurring" | "person">
}

/** `event_occurrence_id`: one group class session. */
const occurrenceLease = Effect.fn("Leases.resolveOccurrence")(function* (shape: Shape, id: number) {
  const { context: { businessId, caller, now }, field, problems, base } = shape
  shape.notAllowed(["staff_member_id", "location_id", "start_at", "recurring"])
  const found = yield* (yield* EventOccurrencesRepo).findWithService({
    businessId,
    id,
    scope: caller,
    appointmentsOf: personOf(caller),
    serviceScope: serviceScope(caller)
  })
  const row = found?.occurrence
  const service = found?.service
  if (!row || !service) problems.push(BookingRefusals.fieldIdNotFound.message({ field: field("event_occurrence_id"), id }))
  else if (row.service_type !== "GroupClass") shape.wrongType("event_occurrence_id", id, row.service_type)
  else {
    problems.push(...timingProblems(service, row.start_at, row.end_at, caller, now))
    return { ...base, kind: "event_occurrence", service, event_id: row.event_id, start_at: row.start_at, occurrenceIds: [id] } satisfies LeasePlan
  }
  return undefined
})

/** `service_id`: an appointment, with its staff member, location and start. */
const appointmentLease = Effect.fn("Leases.resolveAppointment")(function* (shape: Shape, id: number) {
  const { context: { caller }, input, field, problems, base } = shape
  shape.notAllowed(["recurring"])
  for (const name of ["staff_member_id", "location_id", "start_at"] as const) {
    if (!given(input[name])) problems.push(BookingRefusals.fieldRequired.message({ field: field(name) }))
  }
  const service = yield* shape.serviceOf(id)
  if (!service) problems.push(BookingRefusals.fieldIdNotFound.message({ field: field("service_id"), id }))
  else if (service.type !== "Appointment") shape.wrongType("service_id", id, service.type)
  else if (given(input.staff_member_id) && given(input.location_id) && given(input.start_at)) {
    if (isFrontCaller(caller) && !service.online_booking) problems.push(VisitRefusals.eligibilityClientModeBookingNotAllowed.message())
    return {
      ...base,
      kind: "appointment",
      service,
      staff_member_id: input.staff_member_id,
      location_id: input.location_id,
      start_at: input.start_at,
      occurrenceIds: []
    } satisfies LeasePlan
  }
  return undefined
})

/** `event_id`: a group class from a session on (`recurring`: every session from there), or a course's run. */
const eventLease = Effect.fn("Leases.resolveEvent")(function* (shape: Shape, id: number) {
  const { context: { businessId, caller, now }, input, field, problems, base } = shape
  shape.notAllowed(["staff_member_id", "location_id"])
  const repo = yield* BookingsRepo
  const visible = yield* (yield* EventOccurrencesRepo).existingIds({ businessId, table: "events", ids: [id], scope: caller })
  const event = visible.has(id) ? yield* repo.event({ businessId, id }) : undefined
  const service = event ? yield* shape.serviceOf(event.service_id) : undefined
  if (!event || !service) problems.push(BookingRefusals.fieldIdNotFound.message({ field: field("event_id"), id }))
  else if (event.service_type === "GroupClass") {
    const recurring = input.recurring ?? false
    if (!given(input.start_at)) problems.push(BookingRefusals.fieldRequired.message({ field: field("start_at") }))
    else {
      const sessions = yield* repo.sessionsFrom({ businessId, eventId: id, at: input.start_at })
      if (sessions[0]?.start_at.getTime() !== input.start_at.getTime()) {
        problems.push(BookingRefusals.leaseSessionNotFound.message({ field: field("start_at"), id }))
      } else {
        const held = recurring ? sessions : sessions.slice(0, 1)
        problems.push(...timingProblems(service, held[0]!.start_at, null, caller, now))
        const occurrenceIds = held.map((s) => s.id)
        return { ...base, kind: "recurring", service, event_id: id, start_at: input.start_at, recurring, occurrenceIds } satisfies LeasePlan
      }
    }
  } else if (event.service_type === "Course") {
    shape.notAllowed(["recurring"])
    // "Today when empty": the sessions that have not started yet.
    const sessions = yield* repo.sessionsFrom({ businessId, eventId: id, at: input.start_at ?? now })
    if (sessions.length === 0) problems.push(BookingRefusals.leaseNoSessions.message({ field: field("event_id"), id }))
    else {
      problems.push(...timingProblems(service, sessions[0]!.start_at, null, caller, now))
      const occurrenceIds = sessions.map((s) => s.id)
      return { ...base, kind: "course", service, event_id: id, start_at: sessions[0]!.start_at, occurrenceIds } satisfies LeasePlan
    }
  } else {
    shape.wrongType("event_id", id, event.service_type)
  }
  return undefined
})

/**
 * A lease shape to its plan, or undefined with the reasons in `messages`. How a body is read:
 * `event_occurrence_id` leases one group class session; `service_id` an appointment;
 * `event_id` a group class from a session on (`recurring`) or a course's run. Exactly one of
 * the three; fields of another shape are refused, so a mistaken body never books something else.
 */
export const resolveLease = Effect.fn("Leases.resolve")(function* (
  context: ResolveContext,
  input: LeaseInput,
  prefix: string,
  messages: Array<Message>
) {
  const services = yield* ServicesRepo
  const field = (name: string) => `${prefix}.${name}`
  const problems: Array<Message> = []

  const anchors = (["event_occurrence_id", "service_id", "event_id"] as const).filter((name) => given(input[name]))
  const person = yield* resolvePerson(context, input.person, field("person"), problems)
  if (anchors.length === 0) {
    messages.push(BookingRefusals.leaseKindRequired.message({ field: prefix }), ...problems)
    return { plan: undefined, notFound: person.notFound }
  }
  if (anchors.length > 1) {
    messages.push(BookingRefusals.leaseFieldConflict.message({ field: field(anchors[1]!), other: field(anchors[0]!) }), ...problems)
    return { plan: undefined, notFound: person.notFound }
  }
  const shape: Shape = {
    context,
    input,
    field,
    problems,
    notAllowed: (names) => {
      for (const name of names) if (given(input[name])) problems.push(BookingRefusals.leaseFieldNotAllowed.message({ field: field(name) }))
    },
    serviceOf: (id) => services.findMany({ businessId: context.businessId, ids: [id], scope: serviceScope(context.caller) }).pipe(Effect.map((rows) => rows[0])),
    wrongType: (name, id, type) => problems.push(BookingRefusals.leaseWrongServiceType.message({ field: field(name), id, type })),
    base: { event_id: null, staff_member_id: null, location_id: null, start_at: null, recurring: false, person: person.plan }
  }
  const anchor = anchors[0]!
  const plan: LeasePlan | undefined = anchor === "event_occurrence_id"
    ? yield* occurrenceLease(shape, input.event_occurrence_id!)
    : anchor === "service_id"
    ? yield* appointmentLease(shape, input.service_id!)
    : yield* eventLease(shape, input.event_id!)
  if (problems.length > 0) {
    messages.push(...problems)
    return { plan: undefined, notFound: person.notFound }
  }
  return { plan, notFound: person.notFound }
})
