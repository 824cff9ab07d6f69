import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"

/**
 * The SQL of the visits a booking's leases make: what bookings read and write of their visits
 * (bookings sits above visits and calls down). Part of VisitsRepo (repo.ts spreads it in).
 */

/** A visit a booking's lease made. */
const LeaseVisit = Schema.Struct({
  id: Schema.Number,
  lease_id: Schema.Number,
  event_occurrence_id: Schema.Number,
  person_id: Schema.NullOr(Schema.Number),
  state: Schema.String
})
export type LeaseVisit = typeof LeaseVisit.Type

const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

export const leaseVisitsQueries = (sql: SqlClient.SqlClient) => {
  const ofLeases = SqlSchema.findAll({
    Request: InBusiness,
    Result: LeaseVisit,
    execute: ({ businessId, ids }) =>
      sql`select v.id, v.lease_id, v.event_occurrence_id, v.person_id, v.state from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and v.lease_id = any(${ids})
          order by o.start_at, v.id`
  })
  const registerOfLeases = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, now: Schema.Date }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, ids, now }) =>
      sql`update visits set state = 'registered', registered_at = ${now}, updated_at = ${now}
          where business_id = ${businessId} and lease_id = any(${ids}) and state = 'reserved'
          returning id`
  })
  const setPersonOfLease = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, personId: Schema.NullOr(Schema.Number), now: Schema.Date }),
    execute: ({ businessId, id, personId, now }) =>
      sql`update visits set person_id = ${personId}, updated_at = ${now}
          where business_id = ${businessId} and lease_id = ${id}`
  })
  const removeByIds = SqlSchema.void({
    Request: InBusiness,
    execute: ({ businessId, ids }) => sql`delete from visits where business_id = ${businessId} and id = any(${ids})`
  })

  return {
    /** The visits the leases made (by occurrence start). */
    ofLeases: (businessId: number, leaseIds: ReadonlyArray<number>) =>
      leaseIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<LeaseVisit>)
        : ofLeases({ businessId, ids: leaseIds }).pipe(Effect.orDie),

    /** reserved → registered for the leases' visits; returns the ids registered. */
    registerOfLeases: (businessId: number, leaseIds: ReadonlyArray<number>, now: Date) =>
      leaseIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<number>)
        : registerOfLeases({ businessId, ids: leaseIds, now }).pipe(
          Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id).sort((a, b) => a - b)),
          Effect.orDie
        ),

    /** The lease's visits follow its person. */
    setPersonOfLease: (businessId: number, leaseId: number, personId: number | null, now: Date) =>
      setPersonOfLease({ businessId, id: leaseId, personId, now }).pipe(Effect.orDie),

    deleteByIds: (businessId: number, ids: ReadonlyArray<number>) =>
      ids.length === 0 ? Effect.void : removeByIds({ businessId, ids }).pipe(Effect.orDie)
  }
}
