import { Console, Context, Effect, Layer, Logger, Option, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"
import { type Receiver, startReceiver } from "../webhooks/receiver.ts"
import { parseResourceAttributes } from "../../src/platform/config.ts"
import { parentOfJob, withTraceContext } from "../../src/platform/job-trace.ts"
import { tracedJson } from "../../src/platform/logger.ts"
import { sampledTracer } from "../../src/platform/telemetry.ts"

/**
 * OTLP export: the real service and its worker send traces, logs and metrics as
 * OTLP/JSON to a small HTTP receiver of the test's. A booking POST is one trace: the server span,
 * the handler's and services' spans, SQL spans, the job enqueued, the job's run in the worker and
 * the webhook delivery it causes. Nothing secret in any attribute. Without an endpoint, nothing
 * arrives. Never a timing: the exporters send every 100 ms here and flush when the runtime closes.
 */

interface Attribute {
  readonly key: string
  readonly value: Record<string, unknown>
}
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<Attribute>
}
interface OtlpLog {
  readonly traceId?: string
  readonly spanId?: string
  readonly body?: Record<string, unknown>
  readonly attributes: ReadonlyArray<Attribute>
}

const valueOf = (value: Record<string, unknown>): unknown =>
  "stringValue" in value
    ? value.stringValue
    : "intValue" in value
      ? Number(value.intValue)
      : "boolValue" in value
        ? value.boolValue
        : "doubleValue" in value
          ? value.doubleValue
          : JSON.stringify(value)
const attributesOf = (item: { readonly attributes?: ReadonlyArray<Attribute> }) =>
  Object.fromEntries((item.attributes ?? []).map((a) => [a.key, valueOf(a.value)]))

const spansOf = (receiver: Receiver): Array<OtlpSpan> =>
  receiver.received
    .filter((r) => r.path === "/v1/traces")
    .flatMap((r) => (r.json?.resourceSpans ?? []).flatMap((rs: any) => (rs.scopeSpans ?? []).flatMap((ss: any) => ss.spans ?? [])))
const logsOf = (receiver: Receiver): Array<OtlpLog> =>
  receiver.received
    .filter((r) => r.path === "/v1/logs")
    .flatMap((r) => (r.json?.resourceLogs ?? []).flatMap((rl: any) => (rl.scopeLogs ?? []).flatMap((sl: any) => sl.logRecords ?? [])))

/** Info lines are logged (they are exported too) but kept off the test's console. */
const quietConsole = Layer.succeed(Console.Console)({ ...globalThis.console, log: () => {} })

/** SPAN_KIND_SERVER and SPAN_KIND_CONSUMER of OTLP. */
const SERVER = 2
const CONSUMER = 5

const setUp = async (server: TestServer, hooks: Receiver) => {
  const business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
  const location = (await createLocation(server.pool, business.id, { name: "Main" })).id
  const owner = await createPerson(server.pool, business.id, { role: "owner" })
  const token = await createToken(server.pool, owner.accountId, business.id)
  const service = await createService(server.pool, business.id, { type: "GroupClass", name: "Yoga" })
  const subscribed = await server.request("POST", "/api/v3/webhooks", {
    token,
    headers: { "content-type": "application/vnd.api+json" },
    body: JSON.stringify({ data: { type: "webhooks", attributes: { target: hooks.url("/visits"), topic: "visit.created" } } })
  })
  expect(subscribed.status, subscribed.text).toBe(201)
  const date = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10)
  const eventId = await scheduleEvent(server, business.id, {
    service_id: service,
    location_id: location,
    name: "Class",
    frequency: "once",
    weekdays: [],
    start_date: date,
    start_time: "09:00",
    end_time: "10:00",
    capacity: 10,
    staff_member_ids: [owner.staffMemberId!]
  })
  const occurrence = (await occurrencesOf(server.pool, business.id, eventId))[0]!.id
  const person = (await createPerson(server.pool, business.id, { first_name: "Ann" })).personId
  return { business, token, occurrence, person }
}

const book = (server: TestServer, token: string, occurrence: number, person: number) =>
  server.request("POST", "/api/v2/desk/bookings", {
    token,
    headers: { "x-request-id": "trace-test-booking-1" },
    body: { booking: { complete_booking: true, leases: [{ event_occurrence_id: occurrence, person: { id: person } }] } }
  })

describe("OTLP export with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  let collector: Receiver
  let hooks: Receiver
  let server: TestServer | undefined
  let token: string
  let businessId: number
  let traceId: string

  beforeAll(async () => {
    collector = await startReceiver()
    hooks = await startReceiver()
    server = await startTestServer({
      worker: true,
      logLevel: "info",
      layer: quietConsole,
      otlpEndpoint: collector.url(""),
      otlpServiceName: "studio-service-test",
      otlpExportIntervalMs: 100
    })
    const setup = await setUp(server, hooks)
    token = setup.token
    businessId = setup.business.id
    const booked = await book(server, token, setup.occurrence, setup.person)
    expect(booked.status, booked.text).toBe(201)
    // A token in the query: redacted wherever the URL is recorded.
    const listed = await server.request("GET", `/api/v2/desk/locations?access_token=${token}`)
    expect(listed.status, listed.text).toBe(200)
    // A path no route matches: its span keeps the method alone (a raw path would name one span per id).
    expect((await server.request("GET", "/api/v2/desk/no-such-thing/7")).status).toBe(404)
    await hooks.waitFor((all) => all.some((r) => r.path === "/visits"), "the visit.created delivery")
    // Closing the runtime flushes every exporter.
    await collector.waitFor(() => spansOf(collector).some((s) => s.name === "job deliver_webhook"), "the delivery's span", 30_000)
    await server.close()
    server = undefined
    const serverSpan = spansOf(collector).find((s) => s.kind === SERVER && attributesOf(s)["http.route"] === "/api/v2/desk/bookings")
    expect(serverSpan).toBeDefined()
    traceId = serverSpan!.traceId
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await collector?.close()
    await hooks?.close()
  })

  it("sends the resource's service name", () => {
    const request = collector.received.find((r) => r.path === "/v1/traces")!
    const resource = attributesOf(request.json.resourceSpans[0].resource)
    expect(resource["service.name"]).toBe("studio-service-test")
  })

  it("makes one booking POST a server span with route, status, request id and business", () => {
    const server = spansOf(collector).find((s) => s.traceId === traceId && s.kind === SERVER)!
    const attributes = attributesOf(server)
    expect(attributes["http.route"]).toBe("/api/v2/desk/bookings")
    expect(attributes["http.request.method"]).toBe("POST")
    expect(attributes["http.response.status_code"]).toBe(201)
    expect(attributes["request.id"]).toBe("trace-test-booking-1")
    expect(attributes["business.id"]).toBe(businessId)
    expect(server.parentSpanId ?? "").toBe("")
  })

  it("puts the handler's, the services' and SQL spans, and the job enqueued, in the same trace", () => {
    const trace = spansOf(collector).filter((s) => s.traceId === traceId)
    const names = trace.map((s) => s.name)
    // Effect.fn names of the handler and services (src/bookings).
    expect(names.some((name) => /booking/i.test(name) && name !== "POST")).toBe(true)
    const sql = trace.filter((s) => attributesOf(s)["db.query.text"] !== undefined)
    expect(sql.length).toBeGreaterThan(0)
    // Statements with placeholders, never the values.
    expect(sql.some((s) => String(attributesOf(s)["db.query.text"]).includes("$1"))).toBe(true)
    expect(trace.some((s) => s.name === "Jobs.enqueue" && attributesOf(s)["task"] === "webhook_fanout")).toBe(true)
    // Every span of the trace hangs from another of the trace, up to the server span.
    const ids = new Set(trace.map((s) => s.spanId))
    for (const span of trace) if (span.kind !== SERVER) expect(ids.has(span.parentSpanId!), span.name).toBe(true)
  })

  it("continues the trace in the worker: the job's run and the webhook delivery it causes", () => {
    const trace = spansOf(collector).filter((s) => s.traceId === traceId)
    const fanout = trace.find((s) => s.name === "job webhook_fanout")
    expect(fanout?.kind).toBe(CONSUMER)
    expect(attributesOf(fanout!)["job.task"]).toBe("webhook_fanout")
    const delivery = trace.find((s) => s.name === "job deliver_webhook")
    expect(delivery?.kind).toBe(CONSUMER)
    // The delivery's job was enqueued by the fan-out's run.
    const chain = new Map(trace.map((s) => [s.spanId, s]))
    let at = delivery
    while (at !== undefined && at !== fanout) at = chain.get(at.parentSpanId ?? "")
    expect(at).toBe(fanout)
  })

  it("names each server span by its method and route template", () => {
    const servers = spansOf(collector).filter((s) => s.kind === SERVER)
    const booking = servers.find((s) => attributesOf(s)["http.route"] === "/api/v2/desk/bookings")
    expect(booking?.name).toBe("POST /api/v2/desk/bookings")
    const locations = servers.find((s) => attributesOf(s)["http.route"] === "/api/v2/desk/locations")
    expect(locations?.name).toBe("GET /api/v2/desk/locations")
    const unmatched = servers.find((s) => String(attributesOf(s)["url.full"] ?? "").includes("/no-such-thing/7"))
    expect(unmatched).toBeDefined()
    expect(unmatched!.name).toBe("GET")
    expect(attributesOf(unmatched!)["http.route"]).toBeUndefined()
  })

  it("records no token, no secret and no body in any span or log", () => {
    const everything = JSON.stringify([spansOf(collector), logsOf(collector)])
    expect(everything).not.toContain(token)
    const urls = spansOf(collector).flatMap((s) => [attributesOf(s)["url.full"], attributesOf(s)["url.query"]]).filter(Boolean)
    expect(urls.some((url) => String(url).includes("access_token="))).toBe(true)
    expect(everything).not.toContain("complete_booking")
    expect(everything).not.toMatch(/authorization/i)
  })

  it("sends log lines that carry the trace and span ids", () => {
    const logs = logsOf(collector)
    const line = logs.find((l) => l.traceId === traceId)
    expect(line).toBeDefined()
    expect(line!.spanId).toMatch(/^[0-9a-f]{16}$/)
  })

  it("sends metrics", () => {
    expect(collector.received.some((r) => r.path === "/v1/metrics")).toBe(true)
  })
})

describe("without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports nothing and puts no trace context in jobs", async () => {
    const collector = await startReceiver()
    const hooks = await startReceiver()
    // No worker: the jobs the booking enqueued stay in the queue to be read.
    const server = await startTestServer({ logLevel: "info", layer: quietConsole })
    try {
      const setup = await setUp(server, hooks)
      const booked = await book(server, setup.token, setup.occurrence, setup.person)
      expect(booked.status, booked.text).toBe(201)
      const jobs = await server.pool.query(
        "select t.identifier as task, j.payload::text as payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id"
      )
      expect(jobs.rows.map((row) => row.task)).toContain("webhook_fanout")
      for (const row of jobs.rows) expect(row.payload).not.toContain("_trace")
    } finally {
      await server.close()
      await hooks.close()
    }
    expect(collector.received).toEqual([])
    await collector.close()
  }, 120_000)
})

describe("the trace context of a job and the resource attributes", () => {
  it("round-trips a traceparent through a payload, and ignores anything else", () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    const payload = withTraceContext({ business_id: 1 }, traceparent) as Record<string, unknown>
    expect(payload).toEqual({ business_id: 1, _trace: { traceparent } })
    expect(parentOfJob(payload)).toMatchObject({ _tag: "ExternalSpan", traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", sampled: true })
    expect(withTraceContext({ business_id: 1 }, undefined)).toEqual({ business_id: 1 })
    expect(withTraceContext([1], traceparent)).toEqual([1])
    expect(parentOfJob({ business_id: 1 })).toBeUndefined()
    expect(parentOfJob({ _trace: { traceparent: "garbage" } })).toBeUndefined()
    expect(parentOfJob(null)).toBeUndefined()
  })

  it("samples the traces begun here by ratio, and follows the parent's decision otherwise", () => {
    const decided: Array<boolean> = []
    const inner = Tracer.make({ span: (options) => (decided.push(options.sampled), Tracer.nativeTracer.span(options)) })
    const draws = [0.05, 0.5]
    const tracer = sampledTracer(inner, 0.1, () => draws.shift()!)
    const options = { name: "x", annotations: Context.empty(), links: [], startTime: 0n, kind: "server" as const, root: false }
    tracer.span({ ...options, parent: Option.none(), sampled: true })
    tracer.span({ ...options, parent: Option.none(), sampled: true })
    const sampledParent = Tracer.externalSpan({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", sampled: true })
    tracer.span({ ...options, parent: Option.some(sampledParent), sampled: true })
    tracer.span({ ...options, parent: Option.some({ ...sampledParent, sampled: false }), sampled: false })
    expect(decided).toEqual([true, false, true, false])
    // A ratio of 1 keeps the exporter's own tracer.
    expect(sampledTracer(inner, 1)).toBe(inner)
  })

  it("reads OTEL_RESOURCE_ATTRIBUTES", () => {
    expect(parseResourceAttributes("deployment.environment=prod, service.instance.id=api%2D1,broken,=x")).toEqual({
      "deployment.environment": "prod",
      "service.instance.id": "api-1"
    })
    expect(parseResourceAttributes("")).toEqual({})
  })
})

describe("console log lines", () => {
  it("carry trace_id and span_id inside a span, and neither outside one", async () => {
    const lines: Array<Record<string, unknown>> = []
    const capture = Logger.layer([Logger.make((options) => void lines.push(JSON.parse(tracedJson.log(options))))])
    const span = await Effect.runPromise(
      Effect.gen(function* () {
        const span = yield* Effect.withSpan(Effect.tap(Effect.currentSpan, () => Effect.log("inside")), "a span")
        yield* Effect.log("outside")
        return span
      }).pipe(Effect.provide(capture))
    )
    expect(lines[0]).toMatchObject({ message: "inside", trace_id: span.traceId, span_id: span.spanId })
    expect(lines[1]!.message).toBe("outside")
    expect(lines[1]!.trace_id).toBeUndefined()
  })
})
