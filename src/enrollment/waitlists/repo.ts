import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { SERVICE_TYPES } from "../../catalog/services/model.ts"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { LIVE_STATES, WAITLIST_STATES, WaitlistEntryRow } from "./model.ts"
import { recipientJoin } from "../../platform/mail/recipient.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/** The SQL of waitlist entries: lists, the live-entry facts of eligibility, and the offer queue. */
const live = LIVE_STATES as ReadonlyArray<string>
const COLUMNS = `w.id, w.event_occurrence_id, w.person_id, w.state, w.created_at, w.updated_at`
const WaitlistSettings = Schema.Struct({
  service_type: Schema.Literals(SERVICE_TYPES),
  waitlist_enabled: Schema.Boolean,
  waitlist_capacity: Schema.NullOr(Schema.Number)
})
export type WaitlistSettings = typeof WaitlistSettings.Type
const Recipient = Schema.Struct({
  first_name: Schema.String,
  email: Schema.NullOr(Schema.String),
  deleted: Schema.Boolean,
  business_name: Schema.String,
  default_locale: Schema.String,
  occurrence_name: Schema.String,
  start_at: Schema.Date,
  time_zone: Schema.String
})
export type Recipient = typeof Recipient.Type

const Id = Schema.Struct({ id: Schema.Number })
const Ids = Schema.Array(Schema.Number)
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const OfOccurrence = Schema.Struct({ businessId: Schema.Number, occurrenceId: Schema.Number })
const ListRequest = Schema.Struct({
  businessId: Schema.Number,
  personIds: Schema.optional(Ids),
  occurrenceId: Schema.optional(Schema.Number),
  from: Schema.optional(Schema.Date),
  to: Schema.optional(Schema.Date),
  includeRemoved: Schema.Boolean
})

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const listWhere = (filters: typeof ListRequest.Encoded) =>
    sql.and([
      sql`w.business_id = ${filters.businessId}`,
      ...(filters.personIds === undefined ? [] : [sql`w.person_id = any(${bigintArray(filters.personIds)})`]),
      ...(filters.occurrenceId === undefined ? [] : [sql`w.event_occurrence_id = ${filters.occurrenceId}`]),
      ...(filters.from === undefined ? [] : [sql`o.start_at >= ${filters.from}`]),
      ...(filters.to === undefined ? [] : [sql`o.start_at <= ${filters.to}`]),
      ...(filters.includeRemoved ? [] : [sql`w.state <> 'removed'`])
    ])
  // Lists show each occurrence's queue in its order (oldest first, as offers go: oldestWaiting).
  const listFrom = sql`waitlist_entries w join event_occurrences o on o.business_id = w.business_id and o.id = w.event_occurrence_id`
  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ ...ListRequest.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...WaitlistEntryRow.fields, total_count: Schema.Number }),
    execute: (request) =>
      sql`select ${sql.literal(COLUMNS)}, count(*) over ()::int as total_count from ${listFrom}
          where ${listWhere(request)} order by o.start_at, o.id, w.created_at, w.id limit ${request.limit} offset ${request.offset}`
  })
  const counted = SqlSchema.findAll({
    Request: ListRequest,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: (request) => sql`select count(*)::int as n from ${listFrom} where ${listWhere(request)}`
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, lock: Schema.Boolean }),
    Result: WaitlistEntryRow,
    execute: ({ businessId, id, lock }) =>
      sql`select ${sql.literal(COLUMNS)} from waitlist_entries w where w.business_id = ${businessId} and w.id = ${id}
          ${lock ? sql`for update` : sql``}`
  })
  const settings = SqlSchema.findOneOption({
    Request: OfOccurrence,
    Result: WaitlistSettings,
    execute: ({ businessId, occurrenceId }) =>
      sql`select s.type as service_type, s.waitlist_enabled, s.waitlist_capacity from event_occurrences o
          join services s on s.business_id = o.business_id and s.id = o.service_id
          where o.business_id = ${businessId} and o.id = ${occurrenceId}`
  })
  const liveCount = SqlSchema.findOne({
    Request: OfOccurrence,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, occurrenceId }) =>
      sql`select count(*)::int as n from waitlist_entries
          where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and state = any(${live})`
  })
  const Waitlisted = Schema.Struct({ ...OfOccurrence.fields, personIds: Ids })
  const waitlisted = SqlSchema.findAll({
    Request: Waitlisted,
    Result: Schema.Struct({ person_id: Schema.Number }),
    execute: ({ businessId, occurrenceId, personIds }) =>
      sql`select person_id from waitlist_entries
          where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and person_id = any(${bigintArray(personIds)})
            and state = any(${live})`
  })
  const Insert = Schema.Struct({
    businessId: Schema.Number,
    occurrenceId: Schema.Number,
    personId: Schema.Number,
    createdByStaffMemberId: Schema.NullOr(Schema.Number),
    now: Schema.Date
  })
  const insert = SqlSchema.findOneOption({
    Request: Insert,
    Result: Id,
    execute: ({ businessId, occurrenceId, personId, createdByStaffMemberId, now }) =>
      sql`insert into waitlist_entries (business_id, event_occurrence_id, person_id, state, created_by_staff_member_id, created_at, updated_at)
          values (${businessId}, ${occurrenceId}, ${personId}, 'waiting', ${createdByStaffMemberId}, ${now}, ${now})
          on conflict (business_id, event_occurrence_id, person_id) where state in ('pending', 'waiting') do nothing
          returning id`
  })
  const setState = SqlSchema.void({
    Request: Schema.Struct({ ...ById.fields, state: Schema.Literals(WAITLIST_STATES), now: Schema.Date }),
    execute: ({ businessId, id, state, now }) =>
      sql`update waitlist_entries set state = ${state}, updated_at = ${now},
            enrolled_at = case when ${state} = 'enrolled' then ${now} else enrolled_at end
          where business_id = ${businessId} and id = ${id}`
  })
  const remove = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, now: Schema.Date }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id, now }) =>
      sql`update waitlist_entries set state = 'removed', updated_at = ${now}
          where business_id = ${businessId} and id = ${id} and state <> 'removed' returning id`
  })
  const oldestWaiting = SqlSchema.findOneOption({
    Request: OfOccurrence,
    Result: WaitlistEntryRow,
    execute: ({ businessId, occurrenceId }) =>
      sql`select ${sql.literal(COLUMNS)} from waitlist_entries w
          where w.business_id = ${businessId} and w.event_occurrence_id = ${occurrenceId} and w.state = 'waiting'
          order by w.created_at, w.id limit 1 for update`
  })
  const recipient = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, personId: Schema.Number, occurrenceId: Schema.Number }),
    Result: Recipient,
    execute: ({ businessId, personId, occurrenceId }) =>
      sql`select p.first_name, recipient.email,
            p.deleted_at is not null as deleted, b.name as business_name, b.default_locale,
            o.name as occurrence_name, o.start_at, o.time_zone
          from people p
          join businesses b on b.id = p.business_id
          join event_occurrences o on o.business_id = p.business_id and o.id = ${occurrenceId}
          ${sql.literal(recipientJoin("p"))}
          where p.business_id = ${businessId} and p.id = ${personId}`
  })
  const ExpireOccurrence = Schema.Struct({ ...OfOccurrence.fields, now: Schema.Date })
  const expireOccurrence = SqlSchema.findAll({
    Request: ExpireOccurrence,
    Result: Id,
    execute: ({ businessId, occurrenceId, now }) =>
      sql`update waitlist_entries set state = 'expired', updated_at = ${now}
          where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and state = any(${live})
          returning id`
  })
  const expireStarted = SqlSchema.findAll({
    Request: Schema.Struct({ now: Schema.Date }),
    Result: Schema.Struct({ business_id: Schema.Number, event_occurrence_id: Schema.Number }),
    execute: ({ now }) =>
      sql`update waitlist_entries w set state = 'expired', updated_at = ${now}
          from event_occurrences o
          where o.business_id = w.business_id and o.id = w.event_occurrence_id and w.state = any(${live})
            and (o.start_at <= ${now} or o.state in ('canceled', 'deleted'))
          returning w.business_id, w.event_occurrence_id`
  })

  return {
    /**
     * A page of entries by their occurrence's start, then id, and the total. `personIds`: only
     * these people's (client mode: the token's person and dependents); client mode never sees
     * removed (deleted) entries (`includeRemoved`).
     */
    list: orDie(({ page, ...request }: typeof ListRequest.Type & { readonly page: Page }) =>
      Effect.gen(function* () {
        const rows = yield* listed({ ...request, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, counted(request))
        return { rows: rows as ReadonlyArray<WaitlistEntryRow>, total }
      })
    ),
    find: orUndefined((request: typeof ById.Type) => find({ ...request, lock: false })),
    /** The same entry, locked for the rest of the transaction (state changes). */
    lock: orUndefined((request: typeof ById.Type) => find({ ...request, lock: true })),
    /** The service's waitlist settings for an occurrence. */
    settings: orUndefined(settings),
    /** Live (pending or waiting) entries of the occurrence. */
    liveCount: orDie((request: typeof OfOccurrence.Type) => liveCount(request).pipe(Effect.map((row) => row.n))),
    /** Which of `personIds` have a live entry on the occurrence. */
    waitlisted: orDie((request: typeof Waitlisted.Type) =>
      request.personIds.length === 0
        ? Effect.succeed(new Set<number>() as ReadonlySet<number>)
        : waitlisted(request).pipe(Effect.map((rows): ReadonlySet<number> => new Set(rows.map((row) => row.person_id))))
    ),
    /** A new waiting entry's id; undefined when a live one already exists (the unique index decided). */
    insert: orDie((request: typeof Insert.Type) => insert(request).pipe(Effect.map((row) => Option.getOrUndefined(row)?.id))),
    setState: orDie(setState),
    /** Marks the entry removed; undefined when it was removed already (by a request at the same time, say). */
    remove: orUndefined(remove),
    /** The oldest waiting entry of the occurrence, locked (the offer job takes it or skips it). */
    oldestWaiting: orUndefined(oldestWaiting),
    /**
     * Whom to tell of a place given: the person, where their mail goes (src/platform/mail/recipient.ts),
     * the business and the occurrence.
     */
    recipient: orUndefined(recipient),
    /** Expires the live entries of one occurrence; returns how many. */
    expireOccurrence: orDie((request: typeof ExpireOccurrence.Type) => expireOccurrence(request).pipe(Effect.map((rows) => rows.length))),
    /**
     * Every business: live entries of occurrences that have started (or were canceled or
     * deleted) expire. Returns the occurrences touched.
     */
    expireStarted: orDie(expireStarted)
  }
})

export class WaitlistsRepo extends Context.Service<WaitlistsRepo, Effect.Success<typeof make>>()("studio/WaitlistsRepo") {
  static readonly layer = Layer.effect(WaitlistsRepo)(make)
}
