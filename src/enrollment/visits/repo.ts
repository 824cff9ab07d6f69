import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { recipientJoin } from "../../platform/mail/recipient.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { admitStatements, type VisitInsert } from "./admit-statements.ts"
import { leaseVisitsQueries } from "./lease-visits-repo.ts"
import { visitListQueries } from "./list-repo.ts"
import { EmbeddedOccurrenceRow, EmbeddedPersonRow, HOLDING_STATES, ShownVisitRow, VISIT_COLUMNS, VisitRow } from "./model.ts"
import { VisitPayments } from "./payments.ts"
import { waitlistStatements } from "./waitlist-statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/** The SQL of visits; the capacity rule's statements are admit-statements.ts's, spread in. */

const holding = HOLDING_STATES as ReadonlyArray<string>

/** Columns a visit update may write. */
export type VisitChange = Partial<
  Pick<VisitInsert, "person_id" | "state" | "registered_at" | "completed_at" | "noshow_at" | "cancelled_at">
>

const Ids = Schema.Array(Schema.Number)
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Ids })
const OfPerson = Schema.Struct({ businessId: Schema.Number, personId: Schema.Number })
type InBusiness = typeof InBusiness.Type
const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const payments = yield* VisitPayments

  const byIds = SqlSchema.findAll({
    Request: InBusiness,
    Result: VisitRow,
    execute: ({ businessId, ids }) =>
      sql`select ${sql.literal(VISIT_COLUMNS)} from visits v where v.business_id = ${businessId} and v.id = any(${bigintArray(ids)}) order by v.id`
  })

  const embeddedOccurrences = SqlSchema.findAll({
    Request: InBusiness,
    Result: EmbeddedOccurrenceRow,
    execute: ({ businessId, ids }) =>
      sql`select o.id, o.event_id, o.name, o.service_id, o.location_id, o.start_at, o.end_at, o.time_zone, o.state
          from event_occurrences o where o.business_id = ${businessId} and o.id = any(${bigintArray(ids)})`
  })
  const embeddedPeople = SqlSchema.findAll({
    Request: InBusiness,
    Result: EmbeddedPersonRow,
    execute: ({ businessId, ids }) =>
      sql`select p.id, p.first_name, p.last_name, p.email::text as email
          from people p where p.business_id = ${businessId} and p.id = any(${bigintArray(ids)})`
  })

  // A visit as `:id` shows it, with its occurrence and person, in one statement.
  const shown = SqlSchema.findAll({
    Request: InBusiness,
    Result: ShownVisitRow,
    execute: ({ businessId, ids }) =>
      sql`select ${sql.literal(VISIT_COLUMNS)},
                 o.event_id as o_event_id, o.name as o_name, o.service_id as o_service_id, o.location_id as o_location_id,
                 o.start_at as o_start_at, o.end_at as o_end_at, o.time_zone as o_time_zone, o.state as o_state,
                 p.first_name as p_first_name, p.last_name as p_last_name, p.email::text as p_email
          from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          left join people p on p.business_id = v.business_id and p.id = v.person_id
          where v.business_id = ${businessId} and v.id = any(${bigintArray(ids)})
          order by v.id`
  })

  const findForUpdate = SqlSchema.findOneOption({
    Request: ById,
    Result: VisitRow,
    execute: ({ businessId, id }) =>
      sql`select ${sql.literal(VISIT_COLUMNS)} from visits v where v.business_id = ${businessId} and v.id = ${id} for update`
  })
  const remove = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) => sql`delete from visits where business_id = ${businessId} and id = ${id}`
  })
  const completedByService = SqlSchema.findAll({
    Request: OfPerson,
    Result: Schema.Struct({ service_id: Schema.Number, name: Schema.String, first_at: Schema.Date, last_at: Schema.Date, count: Schema.Number }),
    execute: ({ businessId, personId }) =>
      sql`select s.id as service_id, s.name, min(o.start_at) as first_at, max(o.start_at) as last_at, count(*)::int as count
          from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          join services s on s.business_id = o.business_id and s.id = o.service_id
          where v.business_id = ${businessId} and v.person_id = ${personId} and v.state = 'completed'
          group by s.id, s.name order by min(o.start_at), s.id`
  })
  const FutureOf = Schema.Struct({ ...OfPerson.fields, now: Schema.Date })
  const futureVisitCount = SqlSchema.findOne({
    Request: FutureOf,
    Result: Schema.Struct({ count: Schema.Number }),
    execute: ({ businessId, personId, now }) =>
      sql`select count(*)::int as count from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and v.person_id = ${personId} and v.state = any(${holding})
            and o.start_at > ${now} and o.state in ('active', 'reserved')`
  })
  const recipient = SqlSchema.findOneOption({
    Request: OfPerson,
    Result: Schema.Struct({
      first_name: Schema.String,
      email: Schema.NullOr(Schema.String),
      provider_first_name: Schema.NullOr(Schema.String),
      via_provider: Schema.Boolean
    }),
    execute: ({ businessId, personId }) =>
      sql`select p.first_name, recipient.email, recipient.provider_first_name, recipient.provider_first_name is not null as via_provider
          from people p ${sql.literal(recipientJoin("p"))}
          where p.business_id = ${businessId} and p.id = ${personId}`
  })
  const byId = <A>(rows: ReadonlyArray<A & { readonly id: number }>) => new Map(rows.map((row) => [row.id, row]))


  return {
    ...visitListQueries(sql),
    ...leaseVisitsQueries(sql),
    ...admitStatements(sql),

    /** Visits by id, in id order. */
    byIds: orDie((request: InBusiness) => (request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<VisitRow>) : byIds(request))),

    /** Visits by id, in id order, each with its occurrence and person as `:id` embeds them (`o_`, `p_`). */
    shown: orDie((request: InBusiness) => (request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<ShownVisitRow>) : shown(request))),

    // ---- Records embedded in visits and waitlist entries: one query for a whole page ----

    /** The occurrences of these ids, by id. */
    embeddedOccurrences: orDie(({ businessId, ids }: InBusiness) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, EmbeddedOccurrenceRow>())
        : embeddedOccurrences({ businessId, ids: [...new Set(ids)] }).pipe(Effect.map(byId))
    ),
    /** The people of these ids (deleted ones too: their visits stay), by id. */
    embeddedPeople: orDie(({ businessId, ids }: InBusiness) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, EmbeddedPersonRow>())
        : embeddedPeople({ businessId, ids: [...new Set(ids)] }).pipe(Effect.map(byId))
    ),

    // ---- Reading visits (the visit and make-up endpoints) ----

    /** One visit, locked for the rest of the transaction (updates and deletes). */
    findForUpdate: orUndefined(findForUpdate),
    /** Writes the given columns of a visit (and updated_at): which columns is the caller's, so no fixed statement. */
    update: orDie(({ businessId, id, fields, now }: typeof ById.Type & { readonly fields: VisitChange; readonly now: Date }) =>
      sql`update visits set ${sql.update({ ...fields, updated_at: now })} where business_id = ${businessId} and id = ${id}`.pipe(
        Effect.asVoid
      )
    ),
    delete: orDie(remove),
    /** Completed visits of a person per service: first and last occurrence start, and how many. */
    completedByService: orDie(completedByService),
    /** How many visits of the person hold a place in an occurrence that has not started. */
    futureVisitCount: orDie((request: typeof FutureOf.Type) => futureVisitCount(request).pipe(Effect.map((row) => row.count))),
    /** Where a visit notice goes (src/platform/mail/recipient.ts). Null e-mail: nobody to tell. */
    recipient: orUndefined(recipient),

    /** What admitting and freeing places ask of the waitlist (waitlist-statements.ts). */
    waitlist: waitlistStatements(sql),

    /**
     * Billing's answers (a port: auto-pay and punches are billing's). Taken when the repo is
     * built, so every writer that admits visits has it, whatever context it runs in.
     */
    payments
  }
})

export class VisitsRepo extends Context.Service<VisitsRepo, Effect.Success<typeof make>>()("studio/VisitsRepo") {
  static readonly layer = Layer.effect(VisitsRepo)(make)
}
