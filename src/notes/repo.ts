import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Page } from "../shared/pagination.ts"
import { NoteRow, type NoteTarget } from "./model.ts"

const COLUMNS = `n.id, n.note, n.public, n.pinned, n.person_id, n.event_occurrence_id, n.created_by_id, n.created_at, n.updated_at`
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(NoteRow))
const decodeListRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ ...NoteRow.fields, total_count: Schema.Number })))
const decodeCount = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: Schema.Number })))
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))
const Recipient = Schema.Struct({ first_name: Schema.String, email: Schema.String })
const decodeRecipients = Schema.decodeUnknownEffect(Schema.Array(Recipient))
const decodeAbout = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ about: Schema.String })))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const targetSql = (target: NoteTarget) =>
    target._tag === "Person" ? sql`n.person_id = ${target.id}` : sql`n.event_occurrence_id = ${target.id}`
  return {
    /** A page of the target's notes, newest first, and the total. */
    list: (businessId: number, target: NoteTarget, publicOnly: boolean, page: Page) =>
      Effect.gen(function* () {
        const where = sql.and([
          sql`n.business_id = ${businessId}`,
          targetSql(target),
          ...(publicOnly ? [sql`n.public`] : [])
        ])
        const rows = yield* sql`select ${sql.literal(COLUMNS)}, count(*) over ()::int as total_count from notes n
          where ${where} order by n.created_at desc, n.id desc limit ${page.limit} offset ${page.offset}`.pipe(
          Effect.flatMap(decodeListRows)
        )
        const total = rows.length > 0
          ? rows[0]!.total_count
          : page.offset === 0
            ? 0
            : ((yield* sql`select count(*)::int as n from notes n where ${where}`.pipe(Effect.flatMap(decodeCount)))[0]?.n ?? 0)
        return { rows: rows as ReadonlyArray<NoteRow>, total }
      }).pipe(Effect.orDie),

    /** One note, only under its own target (another path's note is not found). */
    find: (businessId: number, target: NoteTarget, id: number) =>
      sql`select ${sql.literal(COLUMNS)} from notes n where n.business_id = ${businessId} and n.id = ${id} and ${targetSql(target)}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      ),

    insert: (
      businessId: number,
      target: NoteTarget,
      fields: { readonly note: string; readonly public: boolean; readonly pinned: boolean; readonly createdById: number },
      now: Date
    ) =>
      sql`insert into notes (business_id, person_id, event_occurrence_id, note, public, pinned, subject, created_by_id, created_at, updated_at)
          values (${businessId}, ${target._tag === "Person" ? target.id : null}, ${target._tag === "EventOccurrence" ? target.id : null},
            ${fields.note}, ${fields.public}, ${fields.pinned}, ${target._tag}, ${fields.createdById}, ${now}, ${now})
          returning id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows[0]!.id),
        Effect.orDie
      ),

    update: (businessId: number, id: number, fields: { readonly note: string; readonly public: boolean; readonly pinned: boolean }, now: Date) =>
      sql`update notes set note = ${fields.note}, public = ${fields.public}, pinned = ${fields.pinned}, updated_at = ${now}
          where business_id = ${businessId} and id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

    delete: (businessId: number, id: number) =>
      sql`delete from notes where business_id = ${businessId} and id = ${id}`.pipe(Effect.asVoid, Effect.orDie),


    /**
     * Who hears of a public note: the person (with an e-mail address), or everyone holding a
     * place on the occurrence (reserved, registered or completed visits).
     */
    recipients: (businessId: number, target: NoteTarget) =>
      (target._tag === "Person"
        ? sql`select first_name, email::text as email from people
              where business_id = ${businessId} and id = ${target.id} and email is not null and deleted_at is null`
        : sql`select p.first_name, p.email::text as email from visits v
              join people p on p.business_id = v.business_id and p.id = v.person_id
              where v.business_id = ${businessId} and v.event_occurrence_id = ${target.id}
                and v.state in ('reserved', 'registered', 'completed') and p.email is not null and p.deleted_at is null
              order by p.id`).pipe(Effect.flatMap(decodeRecipients), Effect.orDie),

    /** What the note is about, for the mail: the person's name or the occurrence's. */
    about: (businessId: number, target: NoteTarget) =>
      (target._tag === "Person"
        ? sql`select concat_ws(' ', first_name, last_name) as about from people where business_id = ${businessId} and id = ${target.id}`
        : sql`select name as about from event_occurrences where business_id = ${businessId} and id = ${target.id}`).pipe(
        Effect.flatMap(decodeAbout),
        Effect.map((rows) => rows[0]?.about ?? ""),
        Effect.orDie
      )
  }
})

export class NotesRepo extends Context.Service<NotesRepo, Effect.Success<typeof make>>()("studio/NotesRepo") {
  static readonly layer = Layer.effect(NotesRepo)(make)
}
