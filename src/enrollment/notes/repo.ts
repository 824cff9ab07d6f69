import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { NOTE_SUBJECTS, NoteRow, type NoteTarget } from "./model.ts"

const COLUMNS = `n.id, n.note, n.public, n.pinned, n.person_id, n.event_occurrence_id, n.created_by_id, n.created_at, n.updated_at`

/** A note's path: under a person or under an event occurrence. */
const Target = Schema.Struct({ _tag: Schema.Literals(NOTE_SUBJECTS), id: Schema.Number })
const NoteFields = { note: Schema.String, public: Schema.Boolean, pinned: Schema.Boolean }

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const targetSql = (target: NoteTarget) =>
    target._tag === "Person" ? sql`n.person_id = ${target.id}` : sql`n.event_occurrence_id = ${target.id}`
  const listWhere = (businessId: number, target: NoteTarget, publicOnly: boolean) =>
    sql.and([sql`n.business_id = ${businessId}`, targetSql(target), ...(publicOnly ? [sql`n.public`] : [])])

  const ListRequest = Schema.Struct({ businessId: Schema.Number, target: Target, publicOnly: Schema.Boolean })
  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ ...ListRequest.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...NoteRow.fields, total_count: Schema.Number }),
    execute: ({ businessId, target, publicOnly, limit, offset }) =>
      sql`select ${sql.literal(COLUMNS)}, count(*) over ()::int as total_count from notes n
          where ${listWhere(businessId, target, publicOnly)} order by n.created_at desc, n.id desc limit ${limit} offset ${offset}`
  })
  const counted = SqlSchema.findAll({
    Request: ListRequest,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: ({ businessId, target, publicOnly }) => sql`select count(*)::int as n from notes n where ${listWhere(businessId, target, publicOnly)}`
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, target: Target, id: Schema.Number }),
    Result: NoteRow,
    execute: ({ businessId, target, id }) =>
      sql`select ${sql.literal(COLUMNS)} from notes n where n.business_id = ${businessId} and n.id = ${id} and ${targetSql(target)}`
  })
  const Insert = Schema.Struct({ businessId: Schema.Number, target: Target, ...NoteFields, createdById: Schema.Number, now: Schema.Date })
  const insert = SqlSchema.findOne({
    Request: Insert,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, target, note, public: isPublic, pinned, createdById, now }) =>
      sql`insert into notes (business_id, person_id, event_occurrence_id, note, public, pinned, subject, created_by_id, created_at, updated_at)
          values (${businessId}, ${target._tag === "Person" ? target.id : null}, ${target._tag === "EventOccurrence" ? target.id : null},
            ${note}, ${isPublic}, ${pinned}, ${target._tag}, ${createdById}, ${now}, ${now})
          returning id`
  })
  const update = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, ...NoteFields, now: Schema.Date }),
    execute: ({ businessId, id, note, public: isPublic, pinned, now }) =>
      sql`update notes set note = ${note}, public = ${isPublic}, pinned = ${pinned}, updated_at = ${now}
          where business_id = ${businessId} and id = ${id}`
  })
  const remove = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id }) => sql`delete from notes where business_id = ${businessId} and id = ${id} returning id`
  })
  const OfTarget = Schema.Struct({ businessId: Schema.Number, target: Target })
  const recipients = SqlSchema.findAll({
    Request: OfTarget,
    Result: Schema.Struct({ first_name: Schema.String, email: Schema.String }),
    execute: ({ businessId, target }) =>
      target._tag === "Person"
        ? sql`select first_name, email::text as email from people
              where business_id = ${businessId} and id = ${target.id} and email is not null and deleted_at is null`
        : sql`select p.first_name, p.email::text as email from visits v
              join people p on p.business_id = v.business_id and p.id = v.person_id
              where v.business_id = ${businessId} and v.event_occurrence_id = ${target.id}
                and v.state in ('reserved', 'registered', 'completed') and p.email is not null and p.deleted_at is null
              order by p.id`
  })
  const about = SqlSchema.findOneOption({
    Request: OfTarget,
    Result: Schema.Struct({ about: Schema.String }),
    execute: ({ businessId, target }) =>
      target._tag === "Person"
        ? sql`select concat_ws(' ', first_name, last_name) as about from people where business_id = ${businessId} and id = ${target.id}`
        : sql`select name as about from event_occurrences where business_id = ${businessId} and id = ${target.id}`
  })

  return {
    /** A page of the target's notes, newest first, and the total. */
    list: orDie(({ page, ...request }: typeof ListRequest.Type & { readonly page: Page }) =>
      Effect.gen(function* () {
        const rows = yield* listed({ ...request, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, counted(request))
        return { rows: rows as ReadonlyArray<NoteRow>, total }
      })
    ),
    /** One note, only under its own target (another path's note is not found). */
    find: orUndefined(find),
    /** Inserts a note; returns its id. */
    insert: orDie((request: typeof Insert.Type) => insert(request).pipe(Effect.map((row) => row.id))),
    update: orDie(update),
    /** Deletes a note; undefined when it was gone already (a concurrent delete got there first). */
    delete: orUndefined(remove),
    /**
     * Who hears of a public note: the person (with an e-mail address), or everyone holding a
     * place on the occurrence (reserved, registered or completed visits).
     */
    recipients: orDie(recipients),
    /** What the note is about, for the mail: the person's name or the occurrence's. */
    about: orDie((request: typeof OfTarget.Type) =>
      about(request).pipe(Effect.map((row) => Option.match(row, { onNone: () => "", onSome: (found) => found.about })))
    )
  }
})

export class NotesRepo extends Context.Service<NotesRepo, Effect.Success<typeof make>>()("studio/NotesRepo") {
  static readonly layer = Layer.effect(NotesRepo)(make)
}
