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
  project.provide("postgresServerUrl", server.url("postgres"))
  return async () => {
    await server.stop()
  }
}
