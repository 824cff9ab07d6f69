import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { Schema } from "effect"
import { expect } from "vitest"
import { clientsCatalog } from "../../reports/catalog/clients.ts"
import type { CatalogContext, ResourceCatalog } from "../../reports/catalog/types.ts"
import { type CompileOptions, compile } from "../../reports/compile.ts"
import { QueryAttributes } from "../../reports/grammar.ts"
import { normalize } from "../../reports/normalize.ts"
import { runQuery } from "../../reports/run.ts"
import { StoreConnection } from "../../reports/store-connection.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { clientsTable } from "../../reports/sync/tables/clients.ts"
import { customFieldsTable } from "../../reports/sync/tables/custom-fields.ts"
import { createTableSql, type StoreTable } from "../../reports/sync/tables/types.ts"
import { t } from "../../src/shared/i18n.ts"
import type { Requester, RequestOptions, TestResponse } from "../support/http.ts"

/** Report engine tests run on an in-memory DuckDB holding the store's real tables. */

export type Row = Record<string, string | number | boolean | null>

export const NOW = new Date("2024-06-15T12:00:00Z")
export const NO_CUSTOM_FIELDS: CatalogContext = { customFields: [], franchiseHolding: false }

/** A clients row with plausible defaults; dates are `YYYY-MM-DD` strings. */
export const clientRow = (fields: Row & { business_id: number; person_id: number }): Row => ({
  key: `${fields.business_id}-${fields.person_id}`,
  business_name: `Studio ${fields.business_id}`,
  business_subdomain: `studio${fields.business_id}`,
  franchise_id: null,
  currency_code: "USD",
  time_zone: "UTC",
  first_name: "Ada",
  middle_name: null,
  last_name: "Lovelace",
  full_name: "Ada Lovelace",
  email: null,
  phone: null,
  address: null,
  birthdate: null,
  account_claim_date: null,
  account_credit_amount: 0,
  account_manager_emails: null,
  account_manager_names: null,
  account_manager_phones: null,
  also_staff: false,
  client_since_date: "2024-01-01",
  completed_visits: 0,
  current_plan_revenue_category: null,
  current_plan_types: null,
  current_plans: null,
  dependent_names: null,
  first_visit_date: null,
  future_visits: 0,
  guardian_email: null,
  guardian_name: null,
  has_membership: false,
  has_payment_on_file: false,
  has_plan_on_hold: false,
  has_signed_waiver: false,
  home_location_name: null,
  is_schedulable: true,
  last_email_bounced: false,
  last_invoice_amount: null,
  last_invoice_date: null,
  last_invoice_id: null,
  last_invoice_unpaid: false,
  last_membership_end_date: null,
  last_signed_waiver_name: null,
  last_site_access_date: null,
  last_visit_date: null,
  last_visit_id: null,
  last_visit_service: null,
  net_paid_amount: 0,
  next_pass_plan_end_date: null,
  person_state: "active",
  primary_staff_name: null,
  revenue_amount: 0,
  source_name: "unknown",
  staff_member_who_added: null,
  unpaid_visits: 0,
  ...fields
})

export const insertRows = async (connection: DuckDBConnection, table: StoreTable, rows: ReadonlyArray<Row>) => {
  const columns = table.columns.map(([name, type]) => [name, type.replace(/ NOT NULL$/, "")] as const)
  const prepared = await connection.prepare(
    `INSERT INTO ${table.name} VALUES (${columns.map(([, type], i) => `CAST($c${i} AS ${type})`).join(", ")})`
  )
  try {
    for (const row of rows) {
      prepared.clearBindings()
      prepared.bind(Object.fromEntries(columns.map(([name], i) => [`c${i}`, row[name] ?? null])))
      await prepared.run()
    }
  } finally {
    prepared.destroySync()
  }
}

/** An in-memory store with these store tables, empty. */
export const memoryTables = async (...tables: ReadonlyArray<StoreTable>) => {
  const instance = await DuckDBInstance.create(":memory:", DUCKDB_OPTIONS)
  const connection = await instance.connect()
  for (const table of tables) await connection.run(createTableSql(table))
  return {
    connection,
    close: () => {
      connection.closeSync()
      instance.closeSync()
    }
  }
}

export const memoryStore = async (clients: ReadonlyArray<Row>, customFields: ReadonlyArray<Row> = []) => {
  const store = await memoryTables(clientsTable, customFieldsTable)
  await insertRows(store.connection, clientsTable, clients)
  await insertRows(store.connection, customFieldsTable, customFields)
  return store
}

const decodeAttributes = Schema.decodeUnknownSync(QueryAttributes)

/** Decode → normalize → compile → run, as the endpoint does; problems rendered in English. */
export const runReport = async (
  connection: DuckDBConnection,
  attributes: unknown,
  options: Partial<CompileOptions> & { readonly context?: CatalogContext; readonly catalog?: ResourceCatalog } = {}
) => {
  const normalized = normalize(decodeAttributes(attributes), options.catalog ?? clientsCatalog, options.context ?? NO_CUSTOM_FIELDS)
  if (normalized._tag === "Invalid") return { errors: normalized.problems.map((p) => t("en", p.key, p.params)) } as const
  const compiled = compile(normalized.query, {
    scope: options.scope ?? [1],
    now: options.now ?? NOW,
    ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone })
  })
  const result = await runQuery(new StoreConnection(connection, 0), normalized.query, compiled)
  if (result._tag === "Invalid") return { errors: result.problems.map((p) => t("en", p.key, p.params)) } as const
  return { page: result.page, compiled } as const
}

/** The page of a query that must succeed. */
export const page = async (...args: Parameters<typeof runReport>) => {
  const result = await runReport(...args)
  if ("errors" in result) throw new Error(`unexpected problems: ${result.errors?.join("; ")}`)
  return result.page
}

/** The problems of a query that must fail. */
export const problemsOf = async (...args: Parameters<typeof runReport>) => {
  const result = await runReport(...args)
  if (!("errors" in result)) throw new Error("expected problems, the query ran")
  return result.errors
}

/** A Reporting API v3 query of one resource over HTTP, as the JSON:API document the endpoint takes. */
export const reportQuery = (
  request: Requester,
  resource: string,
  attributes: unknown,
  options: Pick<RequestOptions, "token" | "host"> = {}
): Promise<TestResponse> =>
  request("POST", `/desk/api/v3/reports/${resource}/queries`, {
    ...options,
    body: { data: { type: "queries", attributes } },
    headers: { "content-type": "application/vnd.api+json" }
  })

/** The rows of a query answer that must succeed, as objects keyed by field name. */
export const rowsOf = (response: TestResponse): Array<Record<string, unknown>> => {
  expect(response.status, response.text).toBe(200)
  const { fields, rows } = response.json.data.attributes as { fields: Array<{ name: string }>; rows: Array<Array<unknown>> }
  return rows.map((row) => Object.fromEntries(fields.map((f, i) => [f.name, row[i]])))
}
