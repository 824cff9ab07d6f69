import { Clock, Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { Enrollments } from "../../schedule/event-occurrences/enrollments.ts"
import type { OccurrenceRow } from "../../schedule/event-occurrences/model.ts"
import { EventOccurrencesRepo } from "../../schedule/event-occurrences/repo.ts"
import { findOccurrence } from "../../schedule/event-occurrences/service.ts"
import { EventsRepo } from "../../schedule/events/repo.ts"
import { clientReach } from "../../identity/people/client-reach.ts"
import { eventSpan } from "../../schedule/events/service.ts"
import { type CallerView, isFrontCaller, staffView } from "../../access/caller.ts"
import { frontCaller } from "../../catalog/services/callers.ts"
import type { ServiceRow } from "../../catalog/services/model.ts"
import { Memberships } from "../../catalog/services/memberships.ts"
import { findService } from "../../catalog/services/service.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { BadRequest, fail, type Message } from "../../shared/errors.ts"
import { t } from "../../shared/i18n.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { Commerce, type PlanTarget } from "./commerce.ts"
import type {
  EligibilityCode,
  EligibilityPersonRow,
  EnrollmentEligibility,
  ServiceEligibilityQuery,
  ServiceEligibilityQueryDesk
} from "./model.ts"
import { EligibilityRepo } from "./repo.ts"
import { type EligibilityFacts, evaluate } from "./rules.ts"
import { EligibilityRefusals } from "./refusals.ts"

const DESCRIPTION_KEYS = {
  credit_card_required: "eligibility_credit_card_required",
  client_purchase_disabled: "eligibility_client_purchase_disabled",
  already_enrolled: "eligibility_already_enrolled",
  cancelled: "eligibility_cancelled",
  client_mode_booking_not_allowed: "eligibility_client_mode_booking_not_allowed",
  clients_not_allowed: "eligibility_clients_not_allowed",
  deleted: "eligibility_deleted",
  full: "eligibility_full",
  in_the_past: "eligibility_in_the_past",
  inside_blackout_window: "eligibility_inside_blackout_window",
  too_far_in_advance: "eligibility_too_far_in_advance",
  members_not_allowed: "eligibility_members_not_allowed",
  plan_required: "eligibility_plan_required"
} as const satisfies Record<EligibilityCode, string>

type Shared = Omit<EligibilityFacts, "isMember" | "alreadyEnrolled" | "hasPlan" | "hasCard">

/** One record per person, descriptions in the request's locale. */
const records = Effect.fn("Eligibility.records")(function* (
  people: ReadonlyArray<EligibilityPersonRow>,
  shared: Shared,
  lookups: {
    readonly enrolled: ReadonlySet<number>
    readonly plan: PlanTarget
  }
) {
  const business = yield* CurrentBusiness
  const { locale } = yield* RequestContext
  const commerce = yield* Commerce
  const ids = people.map((person) => person.id)
  const planHolders = yield* commerce.planHolders(business.id, ids, lookups.plan)
  const cardHolders = yield* commerce.cardHolders(business.id, ids)
  // Members on the day of the visit (today when the target has no time): the plans' rule.
  const date = localDateAt(lookups.plan.at?.getTime() ?? (yield* Clock.currentTimeMillis), business.time_zone)
  const members = yield* (yield* Memberships).members(business.id, ids, date)
  const item = (code: EligibilityCode) => ({ code, description: t(locale, DESCRIPTION_KEYS[code]) })
  return people.map((person): EnrollmentEligibility => {
    const verdict = evaluate({
      ...shared,
      isMember: members.has(person.id),
      alreadyEnrolled: lookups.enrolled.has(person.id),
      hasPlan: planHolders.has(person.id),
      hasCard: cardHolders.has(person.id)
    })
    return {
      person_id: person.id,
      can_enroll: verdict.restrictions.length === 0,
      warnings: verdict.warnings.map(item),
      restrictions: verdict.restrictions.map(item)
    }
  })
})

/**
 * Client mode checks the token's person and their dependents (spec); a `client_id` call has
 * nobody to check (401), and an account without a person here is not found.
 */
const frontPeople = Effect.gen(function* () {
  yield* privateResponse
  const business = yield* CurrentBusiness
  const reach = yield* clientReach
  const rows = yield* (yield* EligibilityRepo).people({ businessId: business.id, ids: reach.personIds })
  return [...rows.filter((row) => row.id === reach.selfId), ...rows.filter((row) => row.id !== reach.selfId)]
})

/** Staff mode checks `person_ids` in the order given; people who do not exist are skipped (spec). */
const deskPeople = (personIds: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const business = yield* CurrentBusiness
    const unique = [...new Set(personIds)]
    const rows = yield* (yield* EligibilityRepo).people({ businessId: business.id, ids: unique })
    const byId = new Map(rows.map((row) => [row.id, row]))
    return unique.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []))
  })

// ---------------------------------------------------------------------------------------------
// Event occurrences

/** The eligibility records of `people` for one occurrence (also the rules client-mode POST visits enforces). */
export const occurrenceEligibility = Effect.fn("Eligibility.occurrence")(function* (
  occurrence: OccurrenceRow,
  service: ServiceRow,
  people: ReadonlyArray<EligibilityPersonRow>,
  mode: "front" | "desk"
) {
  const business = yield* CurrentBusiness
  const enrollments = yield* Enrollments
  const now = yield* Clock.currentTimeMillis
  const taken = (yield* enrollments.placesTaken(business.id, [occurrence.id])).get(occurrence.id) ?? 0
  const enrolled = yield* enrollments.enrolledInOccurrence(business.id, occurrence.id, people.map((person) => person.id))
  return yield* records(
    people,
    {
      mode,
      list: "occurrence",
      service,
      state: occurrence.state,
      window: { start: occurrence.start_at.getTime(), end: occurrence.end_at.getTime(), timeZone: occurrence.time_zone },
      now,
      full: occurrence.capacity !== null && taken >= occurrence.capacity
    },
    {
      enrolled,
      plan: {
        serviceId: service.id,
        locationId: occurrence.location_id,
        staffMemberIds: occurrence.staff.map((staff) => staff.id),
        at: occurrence.start_at
      }
    }
  )
})

export const frontOccurrenceEligibilities = Effect.fn("Eligibility.frontOccurrence")(function* (occurrenceId: number) {
  const people = yield* frontPeople
  const occurrence = yield* findOccurrence(occurrenceId, yield* frontCaller)
  // The occurrence is visible, so its service is too (or it is the caller's own appointment).
  const service = yield* findService(occurrence.service_id, { _tag: "Staff", includeHidden: true })
  return { enrollment_eligibilities: yield* occurrenceEligibility(occurrence, service, people, "front") }
})

export const deskOccurrenceEligibilities = Effect.fn("Eligibility.deskOccurrence")(function* (
  occurrenceId: number,
  personIds: ReadonlyArray<number>
) {
  const occurrence = yield* findOccurrence(occurrenceId, staffView)
  const service = yield* findService(occurrence.service_id, { _tag: "Staff", includeHidden: true })
  const people = yield* deskPeople(personIds)
  return { enrollment_eligibilities: yield* occurrenceEligibility(occurrence, service, people, "desk") }
})

// ---------------------------------------------------------------------------------------------
// Services

/**
 * `event_id` (an event of this service), `location_id` and `staff_member_ids` must exist (in
 * client mode: be visible to clients), else a 400 naming each; `start_at` is checked by its
 * schema. The time rules use `start_at` (for the service's duration), else the event: a
 * course's whole run, a class's next session.
 */
const serviceEligibility = Effect.fn("Eligibility.service")(function* (
  service: ServiceRow,
  query: ServiceEligibilityQuery,
  people: ReadonlyArray<EligibilityPersonRow>,
  scope: CallerView
) {
  const business = yield* CurrentBusiness
  const enrollments = yield* Enrollments
  const now = yield* Clock.currentTimeMillis
  const mode = isFrontCaller(scope) ? "front" : "desk"
  const occurrences = yield* EventOccurrencesRepo
  const problems: Array<Message> = []

  let event: Parameters<typeof eventSpan>[0] | undefined
  if (query.event_id !== undefined) {
    const [row] = yield* (yield* EventsRepo).list({ businessId: business.id, ids: [query.event_id], scope: staffView })
    if (!row) problems.push(EligibilityRefusals.fieldIdNotFound.message({ field: "event_id", id: query.event_id }))
    else if (row.service_id !== service.id) {
      problems.push(EligibilityRefusals.eventNotOfService.message({ field: "event_id", id: query.event_id, service_id: service.id }))
    } else event = row
  }
  if (query.location_id !== undefined) {
    const found = yield* occurrences.existingIds({ businessId: business.id, table: "locations", ids: [query.location_id], scope })
    if (!found.has(query.location_id)) problems.push(EligibilityRefusals.fieldIdNotFound.message({ field: "location_id", id: query.location_id }))
  }
  if (query.staff_member_ids !== undefined) {
    const found = yield* occurrences.existingIds({ businessId: business.id, table: "staff_members", ids: query.staff_member_ids, scope })
    for (const id of new Set(query.staff_member_ids)) {
      if (!found.has(id)) problems.push(EligibilityRefusals.fieldIdNotFound.message({ field: "staff_member_ids", id }))
    }
  }
  if (problems.length > 0) return yield* fail(BadRequest, ...problems)

  let window: EligibilityFacts["window"]
  const timeZone = event?.time_zone ?? business.time_zone
  if (query.start_at !== undefined) {
    const start = query.start_at.getTime()
    window = { start, end: start + service.duration_in_minutes * 60_000, timeZone }
  } else if (event !== undefined) {
    const span = eventSpan(event)
    if (service.type === "Course") window = { start: span.startAt, end: span.endAt, timeZone }
    else {
      const next = yield* (yield* EligibilityRepo).nextSession({ businessId: business.id, eventId: event.id, now: new Date(now) })
      if (next) window = { start: next.start_at.getTime(), end: next.end_at.getTime(), timeZone }
      else if (span.endAt !== null && span.endAt <= now) window = { start: span.startAt, end: span.endAt, timeZone }
    }
  }

  const ids = people.map((person) => person.id)
  const course = service.type === "Course" && event !== undefined ? event : undefined
  const full = course !== undefined && course.capacity !== null && (yield* enrollments.coursePlacesTaken(business.id, course.id)) >= course.capacity
  const enrolled = course !== undefined ? yield* enrollments.enrolledInCourse(business.id, course.id, ids) : new Set<number>()
  return yield* records(
    people,
    { mode, list: "service", service, ...(window ? { window } : {}), now, full },
    {
      enrolled,
      plan: {
        serviceId: service.id,
        locationId: query.location_id ?? event?.location_id ?? null,
        staffMemberIds: query.staff_member_ids ?? event?.staff.map((staff) => staff.id) ?? [],
        at: window ? new Date(window.start) : null
      }
    }
  )
})

export const frontServiceEligibilities = Effect.fn("Eligibility.frontService")(function* (
  serviceId: number,
  query: ServiceEligibilityQuery
) {
  const people = yield* frontPeople
  const caller = yield* frontCaller
  const service = yield* findService(serviceId, caller)
  return { enrollment_eligibilities: yield* serviceEligibility(service, query, people, caller) }
})

export const deskServiceEligibilities = Effect.fn("Eligibility.deskService")(function* (
  serviceId: number,
  query: ServiceEligibilityQueryDesk
) {
  const service = yield* findService(serviceId, { _tag: "Staff", includeHidden: true })
  const people = yield* deskPeople(query.person_ids)
  return { enrollment_eligibilities: yield* serviceEligibility(service, query, people, staffView) }
})
