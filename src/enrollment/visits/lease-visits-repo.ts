import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

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
interface OfLeases {
  readonly businessId: number
  readonly leaseIds: ReadonlyArray<number>
}

export const leaseVisitsQueries = (sql: SqlClient.SqlClient) => {
  const ofLeases = SqlSchema.findAll({
    Request: InBusiness,
    Result: LeaseVisit,
    execute: ({ businessId, ids }) =>
      sql`select v.id, v.lease_id, v.event_occurrence_id, v.person_id, v.state from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and v.lease_id = any(${bigintArray(ids)})
          order by o.start_at, v.id`
  })
  const registerOfLeases = SqlSchema.findAll({
    Request: Schema.Struct({ ...InBusiness.fields, now: Schema.Date }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, ids, now }) =>
      sql`update visits set state = 'registered', registered_at = ${now}, updated_at = ${now}
          where business_id = ${businessId} and lease_id = any(${bigintArray(ids)}) and state = 'reserved'
          returning id`
  })
  const setPersonOfLease = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, leaseId: Schema.Number, personId: Schema.NullOr(Schema.Number), now: Schema.Date }),
    execute: ({ businessId, leaseId, personId, now }) =>
      sql`update visits set person_id = ${personId}, updated_at = ${now}
          where business_id = ${businessId} and lease_id = ${leaseId}`
  })
  const removeByIds = SqlSchema.void({
    Request: InBusiness,
    execute: ({ businessId, ids }) => sql`delete from visits where business_id = ${businessId} and id = any(${bigintArray(ids)})`
  })

  return {
    /** The visits the leases made (by occurrence start). */
    ofLeases: orDie(({ businessId, leaseIds }: OfLeases) =>
      leaseIds.length === 0 ? Effect.succeed([] as ReadonlyArray<LeaseVisit>) : ofLeases({ businessId, ids: leaseIds })
    ),
    /** reserved → registered for the leases' visits; returns the ids registered. */
    registerOfLeases: orDie(({ businessId, leaseIds, now }: OfLeases & { readonly now: Date }) =>
      leaseIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<number>)
        : registerOfLeases({ businessId, ids: leaseIds, now }).pipe(
          Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id).sort((a, b) => a - b))
        )
    ),
    /** The lease's visits follow its person. */
    setPersonOfLease: orDie(setPersonOfLease),
    deleteByIds: orDie((request: typeof InBusiness.Type) => (request.ids.length === 0 ? Effect.void : removeByIds(request)))
  }
}
