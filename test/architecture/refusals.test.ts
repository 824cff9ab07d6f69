import * as fs from "node:fs"
import * as path from "node:path"
import { Context, Option } from "effect"
import { HttpApi, OpenApi } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { Api } from "../../src/app/api.ts"
import { BadRequest, NotFound, Unprocessable } from "../../src/shared/errors.ts"
import { en } from "../../src/shared/i18n/en.ts"
import * as reportRefusals from "../../reports/refusals.ts"

/**
 * Refusals are named where the endpoint is: each domain folder has one `refusals.ts` naming
 * every refusal it answers (src/shared/refusals.ts), the rest of the domain refuses through
 * those names, and every endpoint that can answer 404 or 422 lists its refusals in the OpenAPI
 * description a client reads. A bare message key elsewhere in a domain fails here.
 */
const root = path.resolve(import.meta.dirname, "../..")
/** Contexts whose folders are domains; the flat ones are one domain each. Shared and platform hold no domain. */
const CONTEXTS = ["access", "webhooks", "identity", "catalog", "schedule", "enrollment", "billing", "tools", "app"]

const sources = (dir: string): Array<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(relative)
    return entry.name.endsWith(".ts") ? [relative] : []
  })

const domains = CONTEXTS.flatMap((context) => {
  const dir = path.join("src", context)
  const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true })
  const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(dir, entry.name))
  const flat = entries.some((entry) => entry.isFile() && entry.name.endsWith(".ts"))
  return flat ? [dir, ...folders] : folders
}).concat(["reports"])

const BARE_KEY = /\bkey:\s*"([a-z0-9_]+)"/g

describe("refusals", () => {
  for (const domain of domains) {
    it(`${domain} refuses only through its refusals file`, () => {
      // A flat context's own files are its domain; its sub-folders are domains of their own.
      const files = fs.readdirSync(path.join(root, domain), { withFileTypes: true }).some((e) => e.isFile())
        ? sources(domain).filter((file) => path.dirname(file) === domain || !fs.existsSync(path.join(root, path.dirname(file), "refusals.ts")))
        : sources(domain)
      const bare = files
        .filter((file) => path.basename(file) !== "refusals.ts")
        .flatMap((file) =>
          fs.readFileSync(path.join(root, file), "utf8").split("\n").flatMap((line, index) =>
            [...line.matchAll(BARE_KEY)].map((match) => `${file}:${index + 1}: ${match[1]}`)
          )
        )
      expect(bare).toEqual([])
    })
  }

  // The Reporting API gathers a query's problems as messages (`.message(...)`) rather than
  // failing at the first, so a key is not written `key: "..."` there: any message key quoted
  // outside its refusals file is a bare one. The two answers outside the wire classes a refusal
  // can have (406 for Accept, 503 while the store is built) keep their keys where they answer.
  const OUTSIDE_REFUSALS: Readonly<Record<string, ReadonlyArray<string>>> = {
    "reports/handlers.ts": ["report_not_acceptable"],
    "reports/service.ts": ["report_store_unavailable"]
  }
  it("reports quotes no message key outside its refusals file", () => {
    const bare = sources("reports")
      .filter((file) => path.basename(file) !== "refusals.ts")
      .flatMap((file) =>
        fs.readFileSync(path.join(root, file), "utf8").split("\n").flatMap((line, index) =>
          [...line.matchAll(/"([a-z0-9_]+)"/g)]
            .filter((match) => match[1]! in en && !(OUTSIDE_REFUSALS[file] ?? []).includes(match[1]!))
            .map((match) => `${file}:${index + 1}: ${match[1]}`)
        )
      )
    expect(bare).toEqual([])
  })

  // The endpoint's own errors (an access middleware's refusals are the access layer's).
  const endpoints: Array<{ readonly name: string; readonly description: string }> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const own = [...endpoint.error].map((schema) => (schema as { readonly schema?: unknown }).schema ?? schema)
      if (!own.some((schema) => schema === NotFound || schema === Unprocessable)) return
      const description = Context.getOption(endpoint.annotations, OpenApi.Description)
      endpoints.push({ name: `${endpoint.method} ${endpoint.path}`, description: Option.getOrElse(description, () => "") })
    }
  })
  for (const { name, description } of endpoints) {
    it(`${name} lists its refusals`, () => {
      expect(description).toContain("Refusals")
    })
  }

  // A report query's validation problems are refusals too: its endpoints list every 400 one.
  const queryProblems = Object.values(reportRefusals)
    .flatMap((group) => (Array.isArray(group) ? [] : Object.values(group)))
    .filter((refusal) => refusal.wire === BadRequest)
  const queryEndpoints: Array<{ readonly name: string; readonly description: string }> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (endpoint.method !== "POST" || !endpoint.path.endsWith("/:resource/queries")) return
      const description = Context.getOption(endpoint.annotations, OpenApi.Description)
      queryEndpoints.push({ name: `${endpoint.method} ${endpoint.path}`, description: Option.getOrElse(description, () => "") })
    }
  })
  it("the report query endpoints are found", () => {
    expect(queryEndpoints.length).toBe(2)
    expect(queryProblems.length).toBeGreaterThanOrEqual(30)
  })
  for (const { name, description } of queryEndpoints) {
    it(`${name} lists every query problem`, () => {
      const missing = queryProblems.filter((refusal) => !description.includes(`- 400 \`${refusal.key}\``)).map((refusal) => refusal.key)
      expect(missing).toEqual([])
    })
  }
})
