import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CurrentStaff } from "../src/access/access.ts"
import { isOwner } from "../src/access/policies.ts"
import { CurrentBusiness } from "../src/access/tenant.ts"
import { BadRequest, fail } from "../src/shared/errors.ts"
import { t } from "../src/shared/i18n.ts"
import { RequestContext } from "../src/shared/request-context.ts"
import { resourceCatalog } from "./catalog/resources.ts"
import { describeCatalog, listResources } from "./catalog/describe.ts"
import type { CatalogContext } from "./catalog/types.ts"
import { compile, compileExport } from "./compile.ts"
import type { QueryAttributes } from "./grammar.ts"
import { type ResponseField, normalize } from "./normalize.ts"
import { ReportRefusals } from "./refusals.ts"
import { ReportsRepo } from "./repo.ts"
import type { QueryPage } from "./run.ts"
import { type DataAsOf, ReportStore } from "./store.ts"
import { type StoreConnection } from "./store-connection.ts"
import { formatZoned } from "../src/shared/zoned-time.ts"
import { ReportsUnavailable, type QueryResponse } from "./api.ts"
import { currentTime } from "../src/shared/clock.ts"

/**
 * One report query, end to end: access (owners, or staff with a grant), the resource, the
 * caller's scope (their business, and a franchise holding's franchisees), then decode →
 * normalize → compile → run on the current store generation.
 */
/** Reports are for owners, and for staff members an owner granted them (the catalog too). */
const requireReportAccess = Effect.fn("Reports.access")(function* () {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const repo = yield* ReportsRepo
  if (!isOwner(staff.role) && !(yield* repo.hasGrant(business.id, staff.staffMemberId))) {
    return yield* ReportRefusals.reportAccessDenied.fail()
  }
})

const catalogOf = (resource: string) => {
  const catalog = resourceCatalog(resource)
  return catalog ? Effect.succeed(catalog) : ReportRefusals.reportUnknownResource.fail({ resource: JSON.stringify(resource) })
}

/** `GET /desk/api/v3/reports`: every resource. */
export const listReportResources = Effect.fn("Reports.catalog")(function* () {
  yield* requireReportAccess()
  return { data: listResources(), meta: {} }
})

/** `GET /desk/api/v3/reports/:resource`: its fields, summary fields and groupings. */
export const describeReportResource = Effect.fn("Reports.describe")(function* (resource: string) {
  yield* requireReportAccess()
  return { data: describeCatalog(yield* catalogOf(resource)), meta: {} }
})

export const queryReport = Effect.fn("Reports.query")(function* (resource: string, attributes: QueryAttributes) {
  const business = yield* CurrentBusiness
  const repo = yield* ReportsRepo

  yield* requireReportAccess()
  const catalog = yield* catalogOf(resource)

  const scope = yield* repo.scope(business.id)
  const now = (yield* currentTime)
  const result = yield* (yield* ReportStore)
    .read(async (connection, asOf) => {
      const { readCustomFields, runQuery } = await loadRun()
      // Only a resource with logical fields (clients' custom_fields) needs the definitions.
      const context: CatalogContext = {
        customFields: catalog.logical.size > 0 ? await readCustomFields(connection.connection, scope.businessIds) : [],
        franchiseHolding: scope.franchiseHolding
      }
      const normalized = normalize(attributes, catalog, context)
      if (normalized._tag === "Invalid") return normalized
      const page = await runQuery(connection, normalized.query, compile(normalized.query, { scope: scope.businessIds, now, timeZone: business.time_zone }))
      return page._tag === "Invalid" ? page : { ...page, asOf }
    })
    .pipe(Effect.catchTag("ReportStoreUnavailable", () => storeUnavailable))
  if (result._tag === "Invalid") return yield* fail(BadRequest, ...result.problems)
  return responseOf(result.page, result.asOf, business.time_zone)
})

/** No store yet (a fresh install): ask the worker for one and tell the client to come back. */
const storeUnavailable = Effect.gen(function* () {
  yield* (yield* ReportsRepo).requestFullSync
  const { locale } = yield* RequestContext
  return yield* Effect.fail(new ReportsUnavailable({ errors: [t(locale, "report_store_unavailable")] }))
})

/** An export checked and compiled, on a connection held for the request (export.ts streams it). */
export interface PreparedExport {
  readonly connection: StoreConnection
  readonly fields: ReadonlyArray<ResponseField>
  /** Summary rows: `group_label` first, then the aggregates. */
  readonly summary: boolean
  readonly compiled: ReturnType<typeof compileExport>
  /** `meta.data_as_of` of the same data as JSON. */
  readonly dataAsOf: string
}

/**
 * An export (`Accept: text/csv` or Parquet): the query's access, validation and errors, but
 * every row. The page (`limit`, `starting_after`) and `total_count` are not an export's and
 * are ignored, unchecked. The connection stays held until the request's scope closes, after
 * the last row was written or the client went away.
 */
export const prepareExport = Effect.fn("Reports.prepareExport")(function* (resource: string, attributes: QueryAttributes) {
  const business = yield* CurrentBusiness
  const repo = yield* ReportsRepo
  yield* requireReportAccess()
  const catalog = yield* catalogOf(resource)
  const scope = yield* repo.scope(business.id)
  const now = yield* currentTime
  const held = yield* (yield* ReportStore).hold.pipe(Effect.catchTag("ReportStoreUnavailable", () => storeUnavailable))
  const { readCustomFields } = yield* Effect.promise(loadRun)
  const customFields = catalog.logical.size > 0 ? yield* Effect.promise(() => readCustomFields(held.connection.connection, scope.businessIds)) : []
  const normalized = normalize({ ...attributes, page: undefined, total_count: undefined }, catalog, {
    customFields,
    franchiseHolding: scope.franchiseHolding
  })
  if (normalized._tag === "Invalid") return yield* fail(BadRequest, ...normalized.problems)
  const compiled = compileExport(normalized.query, { scope: scope.businessIds, now, timeZone: business.time_zone })
  return { connection: held.connection, fields: normalized.query.fields, summary: normalized.query.mode === "summary", compiled, dataAsOf: dataAsOf(held.asOf, business.time_zone) } satisfies PreparedExport
})

/**
 * `POST /desk/api/v3/reports/refreshes`: may the caller ask for the incremental
 * refresh now? Granted staff query but do not drive the worker: owners only. The handler
 * counts the request against the business's limit, then queues it (ReportsRepo.requestRefresh).
 */
export const checkRefreshAccess = Effect.fn("Reports.refreshAccess")(function* () {
  const staff = yield* CurrentStaff
  if (!isOwner(staff.role)) return yield* ReportRefusals.ownerRequired.fail()
})

/**
 * run.ts loads DuckDB, which an API process only needs once it answers a report query. Loaded
 * once: a dynamic import resolves its path again on every call (about 50 µs of file lookups).
 */
let runModule: Promise<typeof import("./run.ts")> | undefined
const loadRun = () => (runModule ??= import("./run.ts"))

/** The generation's snapshot time in the business's zone, with its offset (`Z` in UTC), as the reply's datetimes are. */
const dataAsOf = (asOf: DataAsOf, timeZone: string): string => {
  const instant = Date.parse(asOf.syncedAt)
  if (Number.isNaN(instant)) return asOf.syncedAt
  // Milliseconds too: two refreshes a second apart must not read the same.
  const text = formatZoned(instant, timeZone)
  return `${text.slice(0, 19)}.${String(instant % 1000).padStart(3, "0")}${text.slice(19)}`
}

const responseOf = (page: QueryPage, asOf: DataAsOf, timeZone: string): QueryResponse => ({
  data: {
    type: "queries",
    id: randomUUID(),
    attributes: {
      rows: page.rows,
      fields: page.fields,
      duration: page.duration,
      has_more: page.hasMore,
      last_key: page.lastKey,
      ...(page.totalCount === undefined ? {} : { total_count: page.totalCount }),
      meta: {}
    }
  },
  meta: { data_as_of: dataAsOf(asOf, timeZone), generation: asOf.generation }
})
