import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, ManagedRuntime, Option, Schema } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BaseLive } from "../../src/app/layers.ts"
import { AppConfig } from "../../src/platform/config.ts"
import { RequestPipeline } from "../../src/app/request-pipeline.ts"
import { BooleanInput, IdListFromString, IntInput, TimestampInput, formatTimestamp } from "../../src/shared/schemas.ts"
import { createBusiness } from "../support/factories.ts"
import { makeRequester } from "../support/http.ts"
import { type TestServer, startTestServer, TEST_BASE_DOMAIN } from "../support/server.ts"

/**
 * The request pipeline is shared by every endpoint. The foundation has no write endpoint yet,
 * so this probe API (served through the very same pipeline) exercises body decoding: JSON,
 * Rails-style forms, wrong types, malformed JSON, and a defect.
 */
const Visit = Schema.Struct({
  person_id: IntInput,
  event_occurrence_id: IntInput,
  notify_client: Schema.optional(BooleanInput),
  start_at: Schema.optional(TimestampInput),
  tags: Schema.optional(Schema.Array(Schema.String)),
  state: Schema.optional(Schema.Literals(["registered", "reserved"]))
})

const ProbeApi = HttpApi.make("probe").annotate(HttpApi.ParseOptions, { errors: "all" }).add(
  HttpApiGroup.make("probe")
    .add(
      HttpApiEndpoint.post("create", "/api/v2/desk/probe_visits", {
        payload: Schema.Struct({ visit: Visit }),
        success: Schema.Struct({ visits: Schema.Array(Schema.Unknown) })
      })
    )
    .add(
      HttpApiEndpoint.get("list", "/api/v2/desk/probe_visits", {
        query: { ids: Schema.optional(IdListFromString) },
        success: Schema.Struct({ ids: Schema.Array(Schema.Int) })
      })
    )
    .add(HttpApiEndpoint.get("boom", "/api/v2/desk/probe_boom", { success: Schema.Unknown }))
    .add(
      HttpApiEndpoint.get("at", "/api/v2/desk/probe_at", {
        query: { at: TimestampInput },
        success: Schema.Struct({ at: Schema.String })
      })
    )
)

const ProbeLive = HttpApiBuilder.group(ProbeApi, "probe", (handlers) =>
  handlers
    .handle("create", ({ payload }) =>
      Effect.succeed({
        visits: [{ ...payload.visit, start_at: payload.visit.start_at ? formatTimestamp(payload.visit.start_at) : null }]
      }))
    .handle("list", ({ query }) => Effect.succeed({ ids: query.ids ?? [] }))
    .handle("boom", () => Effect.die(new Error("secret internal detail")))
    .handle("at", ({ query }) => Effect.succeed({ at: formatTimestamp(query.at) })))

let app: TestServer
let request: ReturnType<typeof makeRequester>
let runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>

beforeAll(async () => {
  // `app` supplies a database with businesses; the probe server shares its configuration.
  app = await startTestServer()
  await createBusiness(app.pool, { subdomain: "demo", default_locale: "en", time_zone: "America/Los_Angeles" })
  await createBusiness(app.pool, { subdomain: "berlin", default_locale: "de", time_zone: "Europe/Berlin" })
  const probe = Layer.mergeAll(HttpApiBuilder.layer(ProbeApi).pipe(Layer.provide(ProbeLive)), RequestPipeline)
  const server = HttpRouter.serve(probe, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(BaseLive(Layer.succeed(AppConfig)({ ...app.config, databaseUrl: Option.some(app.databaseUrl) })))
  )
  runtime = ManagedRuntime.make(server) as unknown as ManagedRuntime.ManagedRuntime<unknown, unknown>
  const address = await runtime.runPromise(HttpServer.HttpServer.use((s) => Effect.succeed(s.address)) as never)
  request = makeRequester((address as { port: number }).port, `demo.${TEST_BASE_DOMAIN}`)
})
afterAll(async () => {
  await runtime?.dispose()
  await app?.close()
})

const form = (body: string) => ({ body, headers: { "content-type": "application/x-www-form-urlencoded" } })

describe("request bodies", () => {
  it("decode JSON wrapped in the singular resource name", async () => {
    const response = await request("POST", "/api/v2/desk/probe_visits", {
      body: { visit: { person_id: 1, event_occurrence_id: 2, notify_client: true, start_at: "2015-07-06T00:00:00-0700" } }
    })
    expect(response.status).toBe(200)
    expect(response.json.visits[0]).toEqual({
      person_id: 1,
      event_occurrence_id: 2,
      notify_client: true,
      start_at: "2015-07-06T07:00:00Z"
    })
  })

  it("decode Rails-style form bodies to the same values, strings decoded to the schema's types", async () => {
    const response = await request(
      "POST",
      "/api/v2/desk/probe_visits.json",
      form("visit[person_id]=1&visit[event_occurrence_id]=2&visit[notify_client]=false&visit[tags][]=a&visit[tags][]=b")
    )
    expect(response.status).toBe(200)
    expect(response.json.visits[0]).toEqual({
      person_id: 1,
      event_occurrence_id: 2,
      notify_client: false,
      tags: ["a", "b"],
      start_at: null
    })
  })

  it("answer malformed JSON with a 400 naming the problem", async () => {
    const response = await request("POST", "/api/v2/desk/probe_visits", {
      body: '{"visit": {"person_id": 1,',
      headers: { "content-type": "application/json" }
    })
    expect(response.status).toBe(400)
    expect(response.json).toEqual({ errors: ["The request body is not valid JSON"] })
  })

  it("name every field of the wrong type, translated", async () => {
    const response = await request("POST", "/api/v2/desk/probe_visits", {
      body: { visit: { person_id: "abc", event_occurrence_id: true, start_at: "tomorrow", state: "gone" } }
    })
    expect(response.status).toBe(400)
    expect(response.json.errors).toEqual(
      expect.arrayContaining([
        "person_id must be an integer",
        "event_occurrence_id must be an integer",
        expect.stringMatching(/^start_at must be an ISO 8601 timestamp/),
        "state must be one of: registered, reserved"
      ])
    )
    const german = await request("POST", "/api/v2/desk/probe_visits", {
      body: { visit: { event_occurrence_id: 2 } },
      headers: { "x-fd-locale": "de" }
    })
    expect(german.status).toBe(400)
    expect(german.json.errors).toHaveLength(1)
    expect(german.json.errors[0]).toContain("person_id")
    expect(german.json.errors[0]).not.toContain("can't be blank")
  })

  it("say when the body is not wrapped in the resource name", async () => {
    const response = await request("POST", "/api/v2/desk/probe_visits", { body: { person_id: 1, event_occurrence_id: 2 } })
    expect(response.status).toBe(400)
    expect(response.json.errors).toEqual(['The request body must be wrapped in "visit"'])
  })

  it("say when the body is not an object", async () => {
    const response = await request("POST", "/api/v2/desk/probe_visits", {
      body: "[1,2]",
      headers: { "content-type": "application/json" }
    })
    expect(response.status).toBe(400)
    expect(response.json.errors).toEqual(["The request body must be a JSON object"])
  })
})

describe("timestamp parameters", () => {
  const at = async (value: string, host?: string) => {
    const response = await request("GET", `/api/v2/desk/probe_at?at=${encodeURIComponent(value)}`, host ? { host } : {})
    return response.status === 200 ? response.json.at : response
  }

  it("accept the lenient forms a Ruby or Rails client writes", async () => {
    expect(await at("2014-09-13T07:00:0Z")).toBe("2014-09-13T07:00:00Z")
    expect(await at("2014-09-13T7:0:0Z")).toBe("2014-09-13T07:00:00Z")
    expect(await at("2014-9-3T07:00Z")).toBe("2014-09-03T07:00:00Z")
    expect(await at("2014-09-13 07:00:00 UTC")).toBe("2014-09-13T07:00:00Z")
    expect(await at("2014-09-13 07:00:00 -0700")).toBe("2014-09-13T14:00:00Z")
    expect(await at("2014-09-13t07:00:00.250z")).toBe("2014-09-13T07:00:00Z")
  })

  it("accept offsets with and without a colon", async () => {
    expect(await at("2015-07-06T00:00:00-07:00")).toBe("2015-07-06T07:00:00Z")
    expect(await at("2015-07-06T00:00:00-0700")).toBe("2015-07-06T07:00:00Z")
    expect(await at("2015-07-06T12:30:00+0530")).toBe("2015-07-06T07:00:00Z")
    expect(await at("2015-07-06T00:00-07")).toBe("2015-07-06T07:00:00Z")
  })

  it("read a timestamp without an offset in the business's time zone", async () => {
    // Los Angeles is on PDT (-07:00) in September, Berlin on CEST (+02:00).
    expect(await at("2014-09-13 07:00")).toBe("2014-09-13T14:00:00Z")
    expect(await at("2014-09-13T7:0")).toBe("2014-09-13T14:00:00Z")
    expect(await at("2014-09-13T07:00:00")).toBe("2014-09-13T14:00:00Z")
    expect(await at("2014-12-13T07:00")).toBe("2014-12-13T15:00:00Z")
    expect(await at("2014-09-13 07:00", `berlin.${TEST_BASE_DOMAIN}`)).toBe("2014-09-13T05:00:00Z")
    // A wall time skipped by the spring-forward gap moves forward by the gap.
    expect(await at("2015-03-08T02:30")).toBe("2015-03-08T10:30:00Z")
  })

  it("refuse what is not a time, naming the parameter", async () => {
    for (const value of ["2014-13-45T99:00", "2014-02-30T07:00Z", "2014-09-13T24:00Z", "2014-09-13T07:60", "tomorrow", "", "2014-09-13", "2014-09-13T07:00+25:00"]) {
      const response = await at(value)
      expect(response.status, value).toBe(400)
      expect(response.json.errors, value).toEqual([
        "at must be an ISO 8601 timestamp, such as 2015-07-06T00:00:00-07:00 (without an offset: the business's time zone)"
      ])
    }
    const german = await at("tomorrow", `berlin.${TEST_BASE_DOMAIN}`)
    expect(german.json.errors[0]).toMatch(/^at muss ein ISO-8601-Zeitstempel sein/)
  })
})

describe("comma-delimited id lists", () => {
  it("decode to integers and refuse anything else", async () => {
    expect((await request("GET", "/api/v2/desk/probe_visits?ids=1,%202,3")).json).toEqual({ ids: [1, 2, 3] })
    const bad = await request("GET", "/api/v2/desk/probe_visits?ids=1,x")
    expect(bad.status).toBe(400)
    expect(bad.json.errors).toEqual(["ids must be a positive integer"])
  })
})

describe("defects", () => {
  it("answer a generic 500 that names the request id, never the cause", async () => {
    const response = await request("GET", "/api/v2/desk/probe_boom")
    expect(response.status).toBe(500)
    expect(response.text).not.toContain("secret internal detail")
    expect(response.json.errors[0]).toContain(String(response.headers["x-request-id"]))
  })
})

describe("rate limits", () => {
  it("put the RateLimit headers on every response, errors included", async () => {
    for (const path of ["/api/v2/desk/probe_visits", "/api/v2/nowhere", "/healthz"]) {
      const response = await request("GET", path)
      expect(response.headers["ratelimit-limit"], path).toBeDefined()
      expect(response.headers["ratelimit-remaining"], path).toBeDefined()
      expect(Number(response.headers["ratelimit-reset"]), path).toBeGreaterThan(Date.now() / 1000 - 1)
    }
  })
})
