import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inject } from "vitest"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { type Catalog, readCatalog } from "../../src/platform/citus/catalog.ts"
import { checkSchema } from "../../src/platform/citus/check.ts"
import { ensureDatabase, migrate } from "../../src/platform/migrator.ts"

/**
 * The schema stays distributable by business on Citus: read from PostgreSQL's catalogs of a
 * freshly migrated database, never from a list of expected tables, so every table a later
 * migration adds is held to the same rules.
 */

const url = Object.assign(new URL(inject("postgresServerUrl")), { pathname: `/citus_${randomBytes(5).toString("hex")}` }).toString()
let client: pg.Client
let catalog: Catalog

beforeAll(async () => {
  await ensureDatabase(url)
  await migrate(url)
  client = new pg.Client({ connectionString: url })
  await client.connect()
  catalog = await readCatalog(async (sql) => (await client.query(sql)).rows)
})

afterAll(async () => {
  await client?.end()
  const admin = new pg.Client({ connectionString: inject("postgresServerUrl") })
  await admin.connect()
  await admin.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`)
  await admin.end()
})

describe("the migrated schema", () => {
  it("can be distributed by business on Citus", () => {
    expect(catalog.tables.length).toBeGreaterThan(20)
    expect(checkSchema(catalog)).toEqual([])
  })
})

/** The problems the check finds after `ddl`, run in a transaction that is rolled back. */
const problemsAfter = async (ddl: string): Promise<ReadonlyArray<string>> => {
  await client.query("begin")
  try {
    await client.query(ddl)
    return checkSchema(await readCatalog(async (sql) => (await client.query(sql)).rows))
  } finally {
    await client.query("rollback")
  }
}

describe("the check", () => {
  it("fails on a table that has no business_id and is not listed, or has a nullable one", async () => {
    expect(await problemsAfter("create table probe_settings (name text primary key)")).toEqual([
      expect.stringMatching(/^table probe_settings has no business_id and is not listed/)
    ])
    expect(await problemsAfter("create table probe_scoped (id int primary key, business_id bigint)")).toEqual([
      expect.stringMatching(/^table probe_scoped has a nullable business_id/)
    ])
  })

  it("names each key, unique constraint and unique index of a tenant table that omits business_id", async () => {
    const problems = await problemsAfter(`
      create table probe_tags (business_id bigint not null references businesses (id), id bigint primary key, code text, unique (code));
      create unique index probe_tags_lower_code on probe_tags (lower(code));
      create unique index probe_tags_business_code on probe_tags (business_id, code)`)
    expect(problems).toEqual([
      "unique constraint probe_tags_code_key on probe_tags (code) omits business_id",
      "primary key probe_tags_pkey on probe_tags (id) omits business_id",
      "unique index probe_tags_lower_code on probe_tags ((expression)) omits business_id"
    ])
  })

  it("fails on a foreign key between tenant tables that omits business_id, accepts one to a reference table", async () => {
    const problems = await problemsAfter(`
      create table probe_labels (business_id bigint not null references businesses (id), id bigint not null, primary key (business_id, id), unique (id, business_id), unique (id));
      create table probe_uses (
        business_id bigint not null references businesses (id),
        id bigint not null,
        label_id bigint,
        other_label_id bigint,
        account_id bigint references accounts (id),
        primary key (business_id, id),
        constraint probe_uses_label foreign key (label_id, business_id) references probe_labels (id, business_id),
        constraint probe_uses_other_label foreign key (other_label_id) references probe_labels (id))`)
    // The single-column unique key exists only so PostgreSQL accepts the faulty foreign key.
    expect(problems).toEqual([
      "unique constraint probe_labels_id_key on probe_labels (id) omits business_id",
      expect.stringMatching(/^foreign key probe_uses_other_label \(other_label_id\) on probe_uses → probe_labels \(id\) omits business_id on both sides/)
    ])
  })

  it("fails on foreign keys Citus cannot keep between distributed and coordinator-local tables", async () => {
    const problems = await problemsAfter(`
      create table probe_grants (business_id bigint not null references businesses (id), id bigint not null, secret text references app_secrets (name), primary key (business_id, id));
      alter table access_tokens add column probe_grant bigint, add constraint probe_token_grant foreign key (business_id, probe_grant) references probe_grants (business_id, id)`)
    expect(problems).toEqual([
      expect.stringMatching(/^foreign key probe_token_grant .*the coordinator-local table access_tokens cannot reference the distributed probe_grants$/),
      expect.stringMatching(/^foreign key probe_grants_secret_fkey .*a distributed table cannot reference the coordinator-local app_secrets$/)
    ])
  })

  it("fails on an identity or serial column of a tenant table that is not bigint", async () => {
    const problems = await problemsAfter(`
      create table probe_counters (business_id bigint not null references businesses (id), id int generated by default as identity, n serial, primary key (business_id, id));
      create table probe_counters_ok (business_id bigint not null references businesses (id), id bigint generated always as identity, n bigserial, primary key (business_id, id))`)
    expect(problems).toEqual([
      "column probe_counters.id is filled by an identity or sequence but is integer, not bigint",
      "column probe_counters.n is filled by an identity or sequence but is integer, not bigint"
    ])
  })

  it("keeps the list true: a listed table that is gone, or that became tenant data, fails", async () => {
    expect(await problemsAfter("drop table app_secrets")).toEqual([
      "table app_secrets is listed in src/platform/citus/tables.ts but no longer exists"
    ])
    expect(await problemsAfter("alter table account_tokens add column business_id bigint not null references businesses (id)")).toEqual([
      "table account_tokens is listed in src/platform/citus/tables.ts but has a NOT NULL business_id: it is tenant data now",
      // As tenant data, its key (the token hash) must include business_id too.
      "primary key account_tokens_pkey on account_tokens (token_hash) omits business_id"
    ])
  })
})
