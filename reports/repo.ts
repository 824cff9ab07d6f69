import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { CacheEvents, droppedOnChange } from "../src/platform/cache-events.ts"
import { ReportSyncJob } from "./jobs.ts"

/**
 * What the Reporting API reads from PostgreSQL: who may read reports and which businesses a
 * caller sees. Authorization is decided on the system of record, never on the report store,
 * which may lag by up to a minute. Also asks the worker for a store when none exists yet.
 */

const ByStaffMember = Schema.Struct({ businessId: Schema.Number, staffMemberId: Schema.Number })

export interface ReportScope {
  /** The caller's business, then its franchisees when it is a franchise holding. */
  readonly businessIds: ReadonlyArray<number>
  readonly franchiseHolding: boolean
}

/**
 * A business's scope is read on every query, and changes only when a business row does: it is
 * kept for a few seconds, and dropped in every process when any business changes (as the
 * business directory is, src/access/tenant.ts).
 */
const SCOPE_TTL_MS = 5_000

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const scopes = droppedOnChange<number, ReportScope>(yield* CacheEvents, "business", SCOPE_TTL_MS)

  const franchisees = SqlSchema.findAll({
    Request: Schema.Number,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: (businessId) => sql`select id from businesses where franchise_parent_id = ${businessId} order by id`
  })
  const staffByEmail = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, email: Schema.String }),
    Result: Schema.Struct({ id: Schema.Number, role: Schema.String }),
    execute: ({ businessId, email }) =>
      sql`select s.id, s.role from staff_members s
          join people p on p.business_id = s.business_id and p.id = s.person_id
          where s.business_id = ${businessId} and p.email = ${email} and p.deleted_at is null`
  })
  const grant = SqlSchema.void({
    Request: ByStaffMember,
    execute: ({ businessId, staffMemberId }) =>
      sql`insert into report_grants (business_id, staff_member_id) values (${businessId}, ${staffMemberId}) on conflict do nothing`
  })
  const revoke = SqlSchema.void({
    Request: ByStaffMember,
    execute: ({ businessId, staffMemberId }) =>
      sql`delete from report_grants where business_id = ${businessId} and staff_member_id = ${staffMemberId}`
  })
  const hasGrant = SqlSchema.findOneOption({
    Request: ByStaffMember,
    Result: Schema.Struct({ granted: Schema.Number }),
    execute: ({ businessId, staffMemberId }) =>
      sql`select 1 as granted from report_grants where business_id = ${businessId} and staff_member_id = ${staffMemberId}`
  })
  const requestFullSync = SqlSchema.void({
    Request: Schema.Void,
    execute: () =>
      sql`select (graphile_worker.add_job(
        ${ReportSyncJob.name}::text, '{"mode":"full"}'::json,
        queue_name => 'reports', job_key => 'report_sync_full', job_key_mode => 'preserve_run_at'
      )).id`
  })
  // The pending incremental refresh (the one the last refresh queued, or the cron's) runs now.
  const requestRefresh = SqlSchema.void({
    Request: Schema.Void,
    execute: () =>
      sql`select (graphile_worker.add_job(
        ${ReportSyncJob.name}::text, '{"mode":"incremental"}'::json,
        queue_name => 'reports', run_at => now(),
        job_key => 'report_sync_incremental', job_key_mode => 'replace'
      )).id`
  })

  return {
    /** A franchise holding sees its franchisees' rows too; a franchisee or a plain business only its own. */
    scope: (businessId: number) =>
      scopes.get(businessId, () =>
        franchisees(businessId).pipe(
          Effect.map((rows): ReportScope => ({
            businessIds: [businessId, ...rows.map((row) => row.id)],
            franchiseHolding: rows.length > 0
          })),
          Effect.orDie
        )),

    /**
     * Grants or revokes report access of the staff member with that e-mail address (the
     * operator CLI); None when the business has no such staff member.
     */
    setGrant: (businessId: number, email: string, granted: boolean) =>
      Effect.gen(function* () {
        const found = yield* staffByEmail({ businessId, email })
        if (Option.isNone(found)) return undefined
        const staff = found.value
        yield* (granted ? grant : revoke)({ businessId, staffMemberId: staff.id })
        return staff
      }).pipe(Effect.orDie),

    hasGrant: (businessId: number, staffMemberId: number) =>
      hasGrant({ businessId, staffMemberId }).pipe(Effect.map(Option.isSome), Effect.orDie),

    /**
     * Enqueues a full build in the reports queue (where syncs run one at a time); a build
     * already waiting is kept rather than pushed back.
     */
    requestFullSync: requestFullSync(undefined).pipe(Effect.orDie),

    /**
     * An owner's "refresh now": the incremental refresh, under the job key of the
     * chain the worker keeps (scheduleNextRefresh), so it replaces the pending one rather than
     * adding a second; the job queues the next one as usual.
     */
    requestRefresh: requestRefresh(undefined).pipe(Effect.orDie)
  }
})

export class ReportsRepo extends Context.Service<ReportsRepo, Effect.Success<typeof make>>()("studio/ReportsRepo") {
  static readonly layer = Layer.effect(ReportsRepo)(make)
}
