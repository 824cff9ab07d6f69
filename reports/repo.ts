import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { ReportSyncJob } from "./jobs.ts"

/**
 * What the Reporting API reads from PostgreSQL: who may read reports and which businesses a
 * caller sees. Authorization is decided on the system of record, never on the report store,
 * which may lag by up to a minute. Also asks the worker for a store when none exists yet.
 */

const ScopeRow = Schema.Struct({ id: Schema.Number })
const decodeStaff = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number, role: Schema.String })))
const decodeScope = Schema.decodeUnknownEffect(Schema.Array(ScopeRow))

export interface ReportScope {
  /** The caller's business, then its franchisees when it is a franchise holding. */
  readonly businessIds: ReadonlyArray<number>
  readonly franchiseHolding: boolean
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /** A franchise holding sees its franchisees' rows too; a franchisee or a plain business only its own. */
    scope: (businessId: number) =>
      sql`select id from businesses where franchise_parent_id = ${businessId} order by id`.pipe(
        Effect.flatMap(decodeScope),
        Effect.map((franchisees): ReportScope => ({
          businessIds: [businessId, ...franchisees.map((row) => row.id)],
          franchiseHolding: franchisees.length > 0
        })),
        Effect.orDie
      ),

    /**
     * Grants or revokes report access of the staff member with that e-mail address (the
     * operator CLI); None when the business has no such staff member.
     */
    setGrant: (businessId: number, email: string, granted: boolean) =>
      Effect.gen(function* () {
        const [staff] = yield* sql`select s.id, s.role from staff_members s
          join people p on p.business_id = s.business_id and p.id = s.person_id
          where s.business_id = ${businessId} and p.email = ${email} and p.deleted_at is null`.pipe(Effect.flatMap(decodeStaff))
        if (!staff) return undefined
        if (granted) {
          yield* sql`insert into report_grants (business_id, staff_member_id) values (${businessId}, ${staff.id}) on conflict do nothing`
        } else {
          yield* sql`delete from report_grants where business_id = ${businessId} and staff_member_id = ${staff.id}`
        }
        return staff
      }).pipe(Effect.orDie),

    hasGrant: (businessId: number, staffMemberId: number) =>
      sql`select 1 as granted from report_grants where business_id = ${businessId} and staff_member_id = ${staffMemberId}`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),

    /**
     * Enqueues a full build in the reports queue (where syncs run one at a time); a build
     * already waiting is kept rather than pushed back.
     */
    requestFullSync: sql`select (graphile_worker.add_job(
        ${ReportSyncJob.name}::text, '{"mode":"full"}'::json,
        queue_name => 'reports', job_key => 'report_sync_full', job_key_mode => 'preserve_run_at'
      )).id`.pipe(Effect.asVoid, Effect.orDie)
  }
})

export class ReportsRepo extends Context.Service<ReportsRepo, Effect.Success<typeof make>>()("studio/ReportsRepo") {
  static readonly layer = Layer.effect(ReportsRepo)(make)
}
