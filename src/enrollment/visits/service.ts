import { Effect } from "effect"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import type { OccurrenceRow } from "../../schedule/event-occurrences/model.ts"
import { findOccurrence } from "../../schedule/event-occurrences/service.ts"
import { sendMail } from "../../platform/mail/service.ts"
import { clientReach, requireInReach, requireLivePerson } from "../../identity/people/client-reach.ts"
import type { Locale } from "../../shared/locale.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { pairedRange } from "../../shared/ranges.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import type { PersonTarget } from "../../shared/schemas.ts"
import { type VisitListQuery, type VisitRow, type VisitSummary } from "./model.ts"
import { VisitsRepo } from "./repo.ts"
import { detailedVisits, shownVisits } from "./shown.ts"
import { VisitRefusals } from "./refusals.ts"

/**
 * Reading visits (both modes) and the client notices. Client mode reaches the token's person
 * and their dependents (people/client-reach.ts); a visit of anyone else, or without a person,
 * is not found there.
 */

const visitNotFound = (id: number) => VisitRefusals.visitNotFound.fail({ id })

const personVisits = Effect.fn("Visits.personList")(function* (personId: number, query: VisitListQuery) {
  const business = yield* CurrentBusiness
  const range = yield* pairedRange(query, VisitRefusals.rangeBoundRequired.key)
  const page = pageOf(query)
  const { rows, total } = yield* (yield* VisitsRepo).listForPerson({
    businessId: business.id,
    personId,
    page,
    ...range,
    occurrenceId: query.event_occurrence_id
  })
  return { visits: yield* detailedVisits(business.id, rows), ...(yield* pageLinks(page, total)) }
})

// ---------------------------------------------------------------------------------------------
// Client mode

/** A visit of the token's person or a dependent, or a 404. */
export const findFrontVisit = Effect.fn("Visits.findFront")(function* (id: number) {
  const business = yield* CurrentBusiness
  const reach = yield* clientReach
  const [row] = yield* (yield* VisitsRepo).byIds({ businessId: business.id, ids: [id] })
  if (!row || row.person_id === null || !reach.personIds.includes(row.person_id)) return yield* visitNotFound(id)
  return { row, reach }
})

export const getFrontVisit = Effect.fn("Visits.frontGet")(function* (id: number) {
  const reach = yield* clientReach
  const shown = yield* shownVisits((yield* CurrentBusiness).id, [id])
  const personId = shown.visits[0]?.person_id ?? null
  if (personId === null || !reach.personIds.includes(personId)) return yield* visitNotFound(id)
  return shown
})

export const listFrontPersonVisits = Effect.fn("Visits.frontList")(function* (target: PersonTarget, query: VisitListQuery) {
  const reach = yield* clientReach
  const personId = target === "me" ? reach.selfId : target
  yield* requireInReach(reach, personId)
  return yield* personVisits(personId, query)
})

// ---------------------------------------------------------------------------------------------
// Staff mode

export const getDeskVisit = Effect.fn("Visits.deskGet")(function* (id: number) {
  const shown = yield* shownVisits((yield* CurrentBusiness).id, [id])
  if (shown.visits.length === 0) return yield* visitNotFound(id)
  return shown
})

/** A live person of the business (deleted people keep their visits, but are not listed by id). */
const requireDeskPerson = Effect.fn("Visits.requirePerson")(function* (target: PersonTarget) {
  const personId = target === "me" ? (yield* CurrentStaff).personId : target
  yield* requireLivePerson(personId)
  return personId
})

export const listDeskPersonVisits = Effect.fn("Visits.deskPersonList")(function* (target: PersonTarget, query: VisitListQuery) {
  return yield* personVisits(yield* requireDeskPerson(target), query)
})

export const listDeskOccurrenceVisits = Effect.fn("Visits.deskOccurrenceList")(function* (
  occurrenceId: number,
  query: Pick<VisitListQuery, "page" | "per_page">
) {
  const business = yield* CurrentBusiness
  yield* findOccurrence(occurrenceId, { _tag: "Staff" })
  const page = pageOf(query)
  const { rows, total } = yield* (yield* VisitsRepo).listForOccurrence({ businessId: business.id, occurrenceId, page })
  return { visits: yield* detailedVisits(business.id, rows), ...(yield* pageLinks(page, total)) }
})

/** First and last completed visits (their occurrences' starts), overall and per service. */
export const deskVisitSummary = Effect.fn("Visits.summary")(function* (target: PersonTarget) {
  const business = yield* CurrentBusiness
  const personId = yield* requireDeskPerson(target)
  const services = yield* (yield* VisitsRepo).completedByService({ businessId: business.id, personId })
  const first = services.reduce<Date | null>((min, s) => (min === null || s.first_at < min ? s.first_at : min), null)
  const last = services.reduce<Date | null>((max, s) => (max === null || s.last_at > max ? s.last_at : max), null)
  const summary: VisitSummary = {
    person_id: personId,
    first_visited_at: first === null ? null : formatTimestamp(first),
    last_visited_at: last === null ? null : formatTimestamp(last),
    services_visited_at: services.map((s) => ({
      service_id: s.service_id,
      first_visited_at: formatTimestamp(s.first_at),
      last_visited_at: formatTimestamp(s.last_at),
      name: s.name,
      completed_count: s.count
    })),
    completed_count: services.reduce((sum, s) => sum + s.count, 0)
  }
  return { summaries: [summary] }
})

// ---------------------------------------------------------------------------------------------
// Notices to the client

/**
 * Mails the person about their visit (in the caller's transaction, so a rolled-back change
 * sends nothing): to their own address, else to their provider's (a child without e-mail).
 * Nobody with an address: no mail.
 */
export const notifyClient = Effect.fn("Visits.notifyClient")(function* (
  kind: "visit_confirmation" | "visit_cancellation",
  visit: Pick<VisitRow, "person_id" | "event_occurrence_id">,
  locale: Locale,
  /** The visit's occurrence, when the caller has read it already. */
  known?: Pick<OccurrenceRow, "name" | "start_at" | "time_zone">
) {
  if (visit.person_id === null) return
  const business = yield* CurrentBusiness
  const repo = yield* VisitsRepo
  const recipient = yield* repo.recipient({ businessId: business.id, personId: visit.person_id })
  if (!recipient || recipient.email === null) return
  const occurrence = known ?? (yield* findOccurrence(visit.event_occurrence_id, { _tag: "Staff" }))
  const start = new Intl.DateTimeFormat(locale, { dateStyle: "full", timeStyle: "short", timeZone: occurrence.time_zone })
    .format(occurrence.start_at)
  yield* sendMail({
    template: kind,
    to: recipient.email,
    locale,
    params: {
      name: recipient.via_provider ? (recipient.provider_first_name ?? recipient.first_name) : recipient.first_name,
      person: recipient.first_name,
      event: occurrence.name,
      business: business.name,
      start
    },
    businessId: business.id
  })
})
