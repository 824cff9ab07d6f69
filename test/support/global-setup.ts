import type { TestProject } from "vitest/node"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { removeEmbeddedCluster, STATEMENT_STATISTICS, startEmbeddedPostgres } from "../../src/platform/embedded-postgres.ts"
import { migrate } from "../../src/platform/migrator.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** A URL of the test PostgreSQL server with the database name left to each test file. */
    postgresServerUrl: string
  }
}

export const TEMPLATE_DATABASE = "studio_test_template"

/**
 * One PostgreSQL server per test run: `DATABASE_URL`'s server when set, else a container
 * when a Docker engine answers, else embedded-postgres. The template database is migrated
 * once; each test file clones it (test/support/database.ts).
 */
const startServer = async (): Promise<{ url: (database: string) => string; stop: () => Promise<void> }> => {
  if (process.env.DATABASE_URL) {
    const base = new URL(process.env.DATABASE_URL)
    return {
      url: (database) => Object.assign(new URL(base), { pathname: `/${database}` }).toString(),
      stop: async () => {}
    }
  }
  const container = await startContainer()
  if (container) return container
  // A fresh cluster per run, in a folder of its own: nothing left over from an earlier run leaks
  // into this one, and runs side by side (two terminals) do not touch each other's cluster.
  const runDir = path.resolve(`.data/test/run-${process.pid}`)
  fs.rmSync(runDir, { recursive: true, force: true })
  const port = 55000 + Math.floor(Math.random() * 5000)
  // As root in a private checkout, the cluster is placed where user postgres can reach it and
  // `postgres` links to it: removeEmbeddedCluster removes both.
  const dataDir = path.join(runDir, "postgres")
  const server = await startEmbeddedPostgres({ dataDir, port, ephemeral: true })
  return {
    url: server.url,
    stop: async () => {
      await server.stop()
      removeEmbeddedCluster(dataDir)
      fs.rmSync(runDir, { recursive: true, force: true })
    }
  }
}

const startContainer = async () => {
  try {
    const { GenericContainer, Wait, getContainerRuntimeClient } = await import("testcontainers")
    await getContainerRuntimeClient()
    const container = await new GenericContainer("postgres:18")
      .withEnvironment({ POSTGRES_PASSWORD: "postgres" })
      .withExposedPorts(5432)
      .withCommand(["postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=300", ...STATEMENT_STATISTICS])
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start()
    const host = container.getHost()
    const port = container.getMappedPort(5432)
    return {
      url: (database: string) => `postgres://postgres:postgres@${host}:${port}/${database}`,
      stop: async () => void (await container.stop())
    }
  } catch {
    return undefined
  }
}

export default async function setup(project: TestProject) {
  const server = await startServer()
  const admin = new pg.Client({ connectionString: server.url("postgres") })
  await admin.connect()
  await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`)
  await admin.query(`create database ${TEMPLATE_DATABASE}`)
  await admin.end()
  await migrate(server.url(TEMPLATE_DATABASE))
  const bulk = Number(process.env.TEST_BULK_ENROLLMENTS ?? 0)
  if (bulk > 0) (await import("../../bench/support/tenants.ts")).seedScaleBusiness(server.url(TEMPLATE_DATABASE), bulk)
  project.provide("postgresServerUrl", server.url("postgres"))
  return async () => {
    if (bulk > 0) await reportBulkReads(server.url("postgres"), server.url(TEMPLATE_DATABASE))
    await server.stop()
  }
}

/**
 * TEST_BULK_ENROLLMENTS=<n> (a sweep, not part of CI): the template also holds a business of n
 * enrollments (`studio seed scale`: people, visits, plans, punches, invoices, payments), so every
 * test file runs beside large tables of another tenant. A statement that reads by key reads as
 * many buffers as before; one that scans a table grows with the bulk. The run ends by writing the
 * statements that read the most buffers per call to TEST_BULK_LOG (default: the console). Tests
 * that count rows across businesses may fail in such a run; the list is the result.
 */
const reportBulkReads = async (postgresUrl: string, templateUrl: string) => {
  const admin = new pg.Client({ connectionString: postgresUrl })
  const template = new pg.Client({ connectionString: templateUrl })
  await admin.connect()
  await template.connect()
  try {
    await admin.query("create extension if not exists pg_stat_statements")
    // Test files' databases are dropped by now; their statements stay counted under their old oids.
    const { rows } = await admin.query<{ calls: string; buffers: string; query: string }>(
      `select sum(calls) as calls, round(sum(shared_blks_hit + shared_blks_read)::numeric / sum(calls)) as buffers, query
       from pg_stat_statements
       where toplevel and dbid not in (select oid from pg_database)
         and query !~* '^\\s*(create|drop|alter|truncate|copy|analyze|vacuum|begin|commit|rollback|savepoint|release|set|show|listen|unlisten|notify)\\M'
       group by query order by 2 desc limit 300`
    )
    // What the generic plan of each scans in the template, whose tables hold the bulk.
    const { rows: large } = await template.query<{ relname: string }>(
      "select relname from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace and reltuples > 10000"
    )
    const bulky = new Set(large.map((row) => row.relname))
    const lines: Array<string> = []
    for (const row of rows) {
      const scans = await template.query<{ "QUERY PLAN": string }>(`explain (generic_plan) ${row.query}`).then(
        (plan) => [...new Set(plan.rows.flatMap((line) => [...line["QUERY PLAN"].matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]!)))].filter((t) => bulky.has(t)),
        () => []
      )
      const text = row.query.replace(/\s+/g, " ").slice(0, 300)
      lines.push(`${scans.length > 0 ? `SCANS ${scans.join(",")}` : ""}\t${row.buffers} buffers/call\t${row.calls} calls\t${text}`)
    }
    lines.sort((a, b) => Number(b.startsWith("SCANS")) - Number(a.startsWith("SCANS")))
    const report = `Statements by buffers read per call beside a ${process.env.TEST_BULK_ENROLLMENTS}-enrollment business; SCANS: its generic plan scans a table of more than 10,000 rows\n${lines.join("\n")}\n`
    if (process.env.TEST_BULK_LOG) fs.writeFileSync(process.env.TEST_BULK_LOG, report)
    else console.log(report)
  } finally {
    await template.end()
    await admin.end()
  }
}
