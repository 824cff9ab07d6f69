import { Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { insertRows } from "../../shared/sql-rows.ts"
import { ATTENDANCE_OPEN_HOURS, DEMO_CLIENT_EMAIL, DEMO_OWNER_EMAIL, UPCOMING_DAYS } from "./document.ts"


/** The demo's notes: on clients and on sessions, public and private, some pinned, by the staff who would write them. */

/** The people the notes name, by e-mail: staff with their staff id, clients without. */
export const peopleByEmail = (businessId: number, emails: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: Schema.Struct({ email: Schema.String, person_id: Schema.Number, staff_member_id: Schema.NullOr(Schema.Number) }),
      execute: (addresses) =>
        sql`select p.email::text as email, p.id as person_id, s.id as staff_member_id from people p
            left join staff_members s on s.business_id = p.business_id and s.person_id = p.id
            where p.business_id = ${businessId} and p.email = any(${addresses}) and p.deleted_at is null`
    })(emails)
    return new Map(rows.map((row) => [row.email, row]))
  })

/** The first active session of a service in a time range, if any. */
export const sessionOf = (businessId: number, service: string, from: Date, to: Date, order: "first" | "last") =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const session = yield* SqlSchema.findOneOption({
      Request: Schema.Struct({ from: Schema.Date, to: Schema.Date }),
      Result: Schema.Struct({ id: Schema.Number, name: Schema.String, start_at: Schema.Date, end_at: Schema.Date }),
      execute: (range) =>
        sql`select o.id, o.name, o.start_at, o.end_at from event_occurrences o
            join services s on s.business_id = o.business_id and s.id = o.service_id
            where o.business_id = ${businessId} and s.name = ${service} and o.state = 'active'
              and o.start_at >= ${range.from} and o.start_at < ${range.to}
            order by o.start_at ${sql.literal(order === "first" ? "asc" : "desc")} limit 1`
    })({ from, to })
    return Option.getOrUndefined(session)
  })

/** Notes on clients and on sessions, public and private, some pinned, by the staff who would write them. */
export const seedDemoNotes = (businessId: number, nowMs: number, fullClassId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const people = yield* peopleByEmail(businessId, [
      DEMO_OWNER_EMAIL, "manager@demo.test", "ines@demo.test", "tom@demo.test",
      DEMO_CLIENT_EMAIL, "client2@demo.test", "client3@demo.test", "client4@demo.test"
    ])
    const day = 86_400_000
    const hour = 3_600_000
    const ago = (ms: number) => new Date(nowMs - ms)
    const lastVinyasa = yield* sessionOf(businessId, "Vinyasa Flow", ago(14 * day), ago(ATTENDANCE_OPEN_HOURS * hour), "last")
    const nextYin = yield* sessionOf(businessId, "Yin Yoga", ago(0), new Date(nowMs + UPCOMING_DAYS * day), "first")
    type About = { readonly person: string } | { readonly occurrence: number | undefined }
    const note = (about: About, text: string, by: string, at: Date, flags: { public?: boolean; pinned?: boolean } = {}) =>
      ({ about, text, by, at, public: flags.public ?? false, pinned: flags.pinned ?? false })
    const drafts = [
      note({ person: DEMO_CLIENT_EMAIL }, "Welcome to Demo Studio! Your first month includes unlimited Vinyasa and Yin classes.",
        DEMO_OWNER_EMAIL, ago(30 * day), { public: true, pinned: true }),
      note({ person: DEMO_CLIENT_EMAIL }, "Recovering from a left knee injury: offer a bolster and skip deep lunges.",
        "ines@demo.test", ago(12 * day), { pinned: true }),
      note({ person: "client2@demo.test" }, "Asked about a 10-class reformer pack; follow up when packs are on sale.",
        "tom@demo.test", ago(9 * day)),
      note({ person: "client3@demo.test" }, "Thanks for the referral! A free class is waiting for you at the desk.",
        DEMO_OWNER_EMAIL, ago(5 * day), { public: true }),
      note({ person: "client4@demo.test" }, "Prefers a phone call to e-mail about schedule changes.", "manager@demo.test", ago(3 * day)),
      note({ occurrence: fullClassId === 0 ? undefined : fullClassId }, "This class is full: please arrive ten minutes early and bring grip socks.",
        "tom@demo.test", ago(6 * hour), { public: true, pinned: true }),
      note({ occurrence: lastVinyasa?.id }, "The room was cold; the heater was checked after class.",
        "ines@demo.test", new Date((lastVinyasa?.end_at.getTime() ?? nowMs) + hour / 2)),
      note({ occurrence: nextYin?.id }, "Live cello accompaniment in this session.", "ines@demo.test", ago(2 * day), { public: true })
    ]
    const rows = drafts.flatMap((draft) => {
      const personId = "person" in draft.about ? people.get(draft.about.person)?.person_id : undefined
      const occurrenceId = "occurrence" in draft.about ? draft.about.occurrence : undefined
      if (personId === undefined && occurrenceId === undefined) return []
      return [{
        business_id: businessId,
        person_id: personId ?? null,
        event_occurrence_id: occurrenceId ?? null,
        note: draft.text,
        public: draft.public,
        pinned: draft.pinned,
        subject: personId !== undefined ? "Person" : "EventOccurrence",
        created_by_id: people.get(draft.by)?.person_id ?? null,
        created_at: draft.at,
        updated_at: draft.at
      }]
    })
    const values = insertRows(rows)
    if (values) yield* sql`insert into notes ${sql.insert(values)}`
    return rows.length
  }).pipe(Effect.orDie)
