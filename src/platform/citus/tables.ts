/**
 * How each table of the public schema would be placed on a Citus cluster distributed by business.
 *
 * Every table with a NOT NULL `business_id` is tenant data: distributed by `business_id`, all of
 * them in one colocation group, so every query of one business is routed to one node. Every other
 * table is listed here, once, with a reason (a nullable `business_id` is a scope, not a
 * distribution column: such a table is listed too). The schema test
 * (test/platform/citus-readiness) fails when a table is neither tenant data nor listed, and when a
 * listed table no longer exists or has gained a NOT NULL `business_id`; `studio citus-plan` prints
 * the placement from this list and the catalogs.
 *
 * `businesses` itself is a reference table, not distributed by its own id: the host of every
 * request is resolved by subdomain, which must stay unique across businesses, and a franchise
 * location references its parent business; neither holds on a table sharded by id.
 */

export type Placement =
  /** Replicated to every worker node: small, read in joins by tenant tables, changed rarely. */
  | "reference"
  /** Stays on the coordinator only: never joined with tenant rows on a worker. */
  | "coordinator-local"

export interface NonTenantTable {
  readonly placement: Placement
  readonly reason: string
}

/** The distribution column of every tenant table. */
export const DISTRIBUTION_COLUMN = "business_id"

export const NON_TENANT_TABLES: Readonly<Record<string, NonTenantTable>> = {
  businesses: {
    placement: "reference",
    reason:
      "the tenants themselves: every request resolves its host by a subdomain unique across businesses, franchise locations reference their parent, and every tenant table references it"
  },
  accounts: {
    placement: "reference",
    reason:
      "a login (e-mail, password) shared by every business the person belongs to; people and webhook subscriptions reference it, so each node needs a copy"
  },
  oauth_applications: {
    placement: "reference",
    reason: "registered once for the whole installation and authorized by many businesses; tokens and codes reference it"
  },
  access_tokens: {
    placement: "coordinator-local",
    reason:
      "looked up by token hash before the business is known, and account-wide tokens have none: business_id is a nullable scope there, not a key"
  },
  account_tokens: {
    placement: "coordinator-local",
    reason: "password-reset and e-mail confirmation tokens of an account, not of a business"
  },
  oauth_authorization_codes: {
    placement: "coordinator-local",
    reason: "short-lived OAuth codes looked up by their hash at the token endpoint, before any business host is involved (business_id is a nullable scope)"
  },
  mail_messages: {
    placement: "coordinator-local",
    reason: "the outgoing mail log, account mails (sign-up, password reset) included: business_id is null for those"
  },
  account_sessions: {
    placement: "coordinator-local",
    reason: "sign-in sessions of an account, looked up by the cookie's id hash; account-level sessions have no business (business_id is a nullable scope)"
  },
  app_secrets: {
    placement: "coordinator-local",
    reason: "installation-wide signing keys, read once at start"
  },
  schema_migrations: {
    placement: "coordinator-local",
    reason: "the migrator's record of applied files; migrations run through the coordinator"
  },
  rate_limit_budgets: {
    placement: "coordinator-local",
    reason: "short-lived request counters keyed by a digest of a token or IP address and its limit, before or across businesses"
  },
  sign_in_throttles: {
    placement: "coordinator-local",
    reason: "failed sign-in counters keyed by a digest of an e-mail address or IP address, before any business is involved"
  },
  job_worker_registrations: {
    placement: "coordinator-local",
    reason: "worker processes' heartbeats, next to graphile-worker's own schema on the coordinator"
  }
}
