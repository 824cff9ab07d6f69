import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { SERVICE_TYPES } from "../services/model.ts"
import type { Page } from "../shared/pagination.ts"
import { LIVE_STATES, WaitlistEntryRow, type WaitlistState } from "./model.ts"
import { recipientJoin } from "../mail/recipient.ts"

/** The SQL of waitlist entries: lists, the live-entry facts of eligibility, and the offer queue. */
const live = LIVE_STATES as ReadonlyArray<string>
const COLUMNS = `w.id, w.event_occurrence_id, w.person_id, w.state, w.created_at, w.updated_at`
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(WaitlistEntryRow))
const decodeListRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ ...WaitlistEntryRow.fields, total_count: Schema.Number })))
const decodeCount = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: Schema.Number })))
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))
const decodePersonIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ person_id: Schema.Number })))
const WaitlistSettings = Schema.Struct({
  service_type: Schema.Literals(SERVICE_TYPES),
  waitlist_enabled: Schema.Boolean,
  waitlist_capacity: Schema.NullOr(Schema.Number)
})
export type WaitlistSettings = typeof WaitlistSettings.Type
const decodeSettings = Schema.decodeUnknownEffect(Schema.Array(WaitlistSettings))
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
const decodeRecipients = Schema.decodeUnknownEffect(Schema.Array(Recipient))
const decodeExpired = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ business_id: Schema.Number, event_occurrence_id: Schema.Number }))
)

export interface WaitlistListFilters {
  /** Only these people's entries (client mode: the token's person and dependents). */
  readonly personIds?: ReadonlyArray<number> | undefined
  readonly occurrenceId?: number | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  /** Client mode never sees removed (deleted) entries. */
  readonly includeRemoved: boolean
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const one = (rows: ReadonlyArray<WaitlistEntryRow>) => rows[0]
  return {
    /** A page of entries by their occurrence's start, then id, and the total. */
    list: (businessId: number, filters: WaitlistListFilters, page: Page) =>
      Effect.gen(function* () {
        const where = sql.and([
          sql`w.business_id = ${businessId}`,
          ...(filters.personIds === undefined ? [] : [sql`w.person_id = any(${filters.personIds})`]),
          ...(filters.occurrenceId === undefined ? [] : [sql`w.event_occurrence_id = ${filters.occurrenceId}`]),
          ...(filters.from === undefined ? [] : [sql`o.start_at >= ${filters.from}`]),
          ...(filters.to === undefined ? [] : [sql`o.start_at <= ${filters.to}`]),
          ...(filters.includeRemoved ? [] : [sql`w.state <> 'removed'`])
        ])
        const from = sql`waitlist_entries w join event_occurrences o on o.business_id = w.business_id and o.id = w.event_occurrence_id`
        const rows = yield* sql`select ${sql.literal(COLUMNS)}, count(*) over ()::int as total_count from ${from}
          where ${where} order by o.start_at, w.id limit ${page.limit} offset ${page.offset}`.pipe(Effect.flatMap(decodeListRows))
        const total = rows.length > 0
          ? rows[0]!.total_count
          : page.offset === 0
            ? 0
            : ((yield* sql`select count(*)::int as n from ${from} where ${where}`.pipe(Effect.flatMap(decodeCount)))[0]?.n ?? 0)
        return { rows: rows as ReadonlyArray<WaitlistEntryRow>, total }
      }).pipe(Effect.orDie),

    find: (businessId: number, id: number) =>
      sql`select ${sql.literal(COLUMNS)} from waitlist_entries w where w.business_id = ${businessId} and w.id = ${id}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map(one),
        Effect.orDie
      ),

    /** The same entry, locked for the rest of the transaction (state changes). */
    lock: (businessId: number, id: number) =>
      sql`select ${sql.literal(COLUMNS)} from waitlist_entries w where w.business_id = ${businessId} and w.id = ${id} for update`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map(one),
        Effect.orDie
      ),

    /** The service's waitlist settings for an occurrence. */
    settings: (businessId: number, occurrenceId: number) =>
      sql`select s.type as service_type, s.waitlist_enabled, s.waitlist_capacity from event_occurrences o
          join services s on s.business_id = o.business_id and s.id = o.service_id
          where o.business_id = ${businessId} and o.id = ${occurrenceId}`.pipe(
        Effect.flatMap(decodeSettings),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      ),

    /** Live (pending or waiting) entries of the occurrence. */
    liveCount: (businessId: number, occurrenceId: number) =>
      sql`select count(*)::int as n from waitlist_entries
          where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and state = any(${live})`.pipe(
        Effect.flatMap(decodeCount),
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.orDie
      ),

    /** Which of `personIds` have a live entry on the occurrence. */
    waitlisted: (businessId: number, occurrenceId: number, personIds: ReadonlyArray<number>) =>
      personIds.length === 0
        ? Effect.succeed(new Set<number>() as ReadonlySet<number>)
        : sql`select person_id from waitlist_entries
              where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and person_id = any(${personIds})
                and state = any(${live})`.pipe(
          Effect.flatMap(decodePersonIds),
          Effect.map((rows): ReadonlySet<number> => new Set(rows.map((row) => row.person_id))),
          Effect.orDie
        ),

    /** A new waiting entry; None when a live one already exists (the unique index decided). */
    insert: (businessId: number, entry: { readonly occurrenceId: number; readonly personId: number; readonly createdByStaffMemberId: number | null }, now: Date) =>
      sql`insert into waitlist_entries (business_id, event_occurrence_id, person_id, state, created_by_staff_member_id, created_at, updated_at)
          values (${businessId}, ${entry.occurrenceId}, ${entry.personId}, 'waiting', ${entry.createdByStaffMemberId}, ${now}, ${now})
          on conflict (business_id, event_occurrence_id, person_id) where state in ('pending', 'waiting') do nothing
          returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows[0]?.id),
        Effect.orDie
      ),

    setState: (businessId: number, id: number, state: WaitlistState, now: Date) =>
      sql`update waitlist_entries set state = ${state}, updated_at = ${now},
            enrolled_at = case when ${state} = 'enrolled' then ${now} else enrolled_at end
          where business_id = ${businessId} and id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

    /** The oldest waiting entry of the occurrence, locked (the offer job takes it or skips it). */
    oldestWaiting: (businessId: number, occurrenceId: number) =>
      sql`select ${sql.literal(COLUMNS)} from waitlist_entries w
          where w.business_id = ${businessId} and w.event_occurrence_id = ${occurrenceId} and w.state = 'waiting'
          order by w.created_at, w.id limit 1 for update`.pipe(Effect.flatMap(decodeRows), Effect.map(one), Effect.orDie),

    /**
     * Whom to tell of a place given: the person, where their mail goes (src/mail/recipient.ts),
     * the business and the occurrence.
     */
    recipient: (businessId: number, personId: number, occurrenceId: number) =>
      sql`select p.first_name, recipient.email,
            p.deleted_at is not null as deleted, b.name as business_name, b.default_locale,
            o.name as occurrence_name, o.start_at, o.time_zone
          from people p
          join businesses b on b.id = p.business_id
          join event_occurrences o on o.business_id = p.business_id and o.id = ${occurrenceId}
          ${sql.literal(recipientJoin("p"))}
          where p.business_id = ${businessId} and p.id = ${personId}`.pipe(
        Effect.flatMap(decodeRecipients),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      ),

    /** Live entries of these (occurrence, person) pairs become `enrolled`: the person got a visit. */
    enrollVisitors: (businessId: number, pairs: ReadonlyArray<{ readonly occurrenceId: number; readonly personId: number }>, now: Date) =>
      pairs.length === 0
        ? Effect.void
        : sql`update waitlist_entries w set state = 'enrolled', enrolled_at = ${now}, updated_at = ${now}
              from unnest(${pairs.map((pair) => pair.occurrenceId)}::bigint[], ${pairs.map((pair) => pair.personId)}::bigint[]) as p(o, q)
              where w.business_id = ${businessId} and w.event_occurrence_id = p.o and w.person_id = p.q
                and w.state = any(${live})`.pipe(Effect.asVoid, Effect.orDie),

    /** Of the occurrences, those with someone waiting (whom a freed place is offered to). */
    withWaiting: (businessId: number, occurrenceIds: ReadonlyArray<number>) =>
      occurrenceIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<number>)
        : sql`select distinct event_occurrence_id as id from waitlist_entries
              where business_id = ${businessId} and event_occurrence_id = any(${occurrenceIds}) and state = 'waiting'`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id)),
          Effect.orDie
        ),

    /** Expires the live entries of one occurrence; returns how many. */
    expireOccurrence: (businessId: number, occurrenceId: number, now: Date) =>
      sql`update waitlist_entries set state = 'expired', updated_at = ${now}
          where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and state = any(${live})
          returning id`.pipe(Effect.flatMap(decodeIds), Effect.map((rows) => rows.length), Effect.orDie),

    /**
     * Every business: live entries of occurrences that have started (or were canceled or
     * deleted) expire. Returns the occurrences touched.
     */
    expireStarted: (now: Date) =>
      sql`update waitlist_entries w set state = 'expired', updated_at = ${now}
          from event_occurrences o
          where o.business_id = w.business_id and o.id = w.event_occurrence_id and w.state = any(${live})
            and (o.start_at <= ${now} or o.state in ('canceled', 'deleted'))
          returning w.business_id, w.event_occurrence_id`.pipe(Effect.flatMap(decodeExpired), Effect.orDie)
  }
})

export class WaitlistsRepo extends Context.Service<WaitlistsRepo, Effect.Success<typeof make>>()("studio/WaitlistsRepo") {
  static readonly layer = Layer.effect(WaitlistsRepo)(make)
}
