import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { sendMail } from "../../platform/mail/service.ts"
import { parseLocale } from "../../shared/locale.ts"
import { admitVisits } from "../visits/capacity.ts"
import { emitVisitEvents } from "../visits/events.ts"
import { VisitsRepo } from "../visits/repo.ts"
import { WaitlistsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * The offer policy (docs/decisions.md, "Waitlist offers"). Places freed in an occurrence go to
 * its waitlist, oldest waiting entry first, as registered visits: the person is enrolled
 * without being asked (the public API's behaviour) and told by mail; visit.created goes out.
 *
 * One transaction: admitVisits locks the occurrence, so the offer and any concurrent POST
 * visit are counted against each other and no place is given twice. Once the occurrence has
 * started (or was canceled or deleted), its live entries expire instead.
 */
export const offerWaitlistPlaces = Effect.fn("Waitlists.offer")(function* (businessId: number, occurrenceId: number) {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* WaitlistsRepo
  const visits = yield* VisitsRepo
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const now = (yield* currentTime)
      const [occurrence] = yield* visits.lockOccurrences({ businessId, ids: [occurrenceId] })
      if (!occurrence) return { enrolled: 0, expired: 0 }
      if (occurrence.state === "canceled" || occurrence.state === "deleted" || occurrence.start_at.getTime() <= now.getTime()) {
        return { enrolled: 0, expired: yield* repo.expireOccurrence({ businessId, occurrenceId, now }) }
      }
      let enrolled = 0
      while (true) {
        if (occurrence.capacity !== null) {
          const taken = (yield* visits.placesTaken({ businessId, ids: [occurrenceId] })).get(occurrenceId) ?? 0
          if (taken >= occurrence.capacity) break
        }
        const entry = yield* repo.oldestWaiting({ businessId, occurrenceId })
        if (!entry) break
        const recipient = yield* repo.recipient({ businessId, personId: entry.person_id, occurrenceId })
        if (!recipient || recipient.deleted) {
          yield* repo.setState({ businessId, id: entry.id, state: "removed", now })
          continue
        }
        // Already on the roster (a visit in any state): the entry has done its work.
        if ((yield* visits.visitorsOf({ businessId, occurrenceIds: [occurrenceId], personIds: [entry.person_id] })).length > 0) {
          yield* repo.setState({ businessId, id: entry.id, state: "enrolled", now })
          continue
        }
        // admitVisits moves the entry to `enrolled`; its 422 ("full") means no place after all.
        const ids = yield* admitVisits(businessId, [{ occurrenceId, personId: entry.person_id, state: "registered", notifyClient: true }], {
          enforceCapacity: true
        }).pipe(Effect.catch(() => Effect.succeed(null)))
        if (ids === null) break
        enrolled++
        yield* emitVisitEvents(businessId, "visit.created", ids)
        if (recipient.email !== null) {
          const locale = parseLocale(recipient.default_locale) ?? "en"
          yield* sendMail({
            template: "waitlist_enrolled",
            to: recipient.email,
            locale,
            params: {
              name: recipient.first_name,
              business: recipient.business_name,
              event: recipient.occurrence_name,
              start: recipient.start_at.toLocaleString(locale, { timeZone: recipient.time_zone, dateStyle: "full", timeStyle: "short" })
            },
            businessId
          })
        }
      }
      return { enrolled, expired: 0 }
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
})

/** The sweep: live entries of every occurrence that has started (or was canceled or deleted) expire. */
export const expireStartedEntries = Effect.fn("Waitlists.expire")(function* () {
  const now = (yield* currentTime)
  return (yield* (yield* WaitlistsRepo).expireStarted({ now })).length
})
