import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { hashPassword } from "../../src/access/passwords.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type RequestOptions, type TestResponse, readResponse } from "../support/http.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 29, "Bounded input": every attack of the issue sent as a request, and its refusal
 * asserted: a 4xx with `{"errors": [...]}` instead of a 500 or a read of the whole body. Report
 * queries: report-bounds.test.ts.
 */

let server: TestServer
let ownerToken: string
const HOST = `demo.${TEST_BASE_DOMAIN}`
const EMAIL = "owner@bounded.test"
const PASSWORD = "correct horse battery"

beforeAll(async () => {
  // Errors are logged (as JSON lines on the console), for the test of the 500s that remain.
  server = await startTestServer({ logLevel: "error" })
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await createApplication(server.pool, "test-app")
  const owner = await createPerson(server.pool, demo.id, { email: EMAIL, role: "owner" })
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [owner.accountId, await hashPassword(PASSWORD)])
  ownerToken = await createToken(server.pool, owner.accountId, demo.id)
})
afterAll(async () => {
  await server?.close()
})

const FORM = { "content-type": "application/x-www-form-urlencoded" }
const form = (body: string, options: RequestOptions = {}) => ({ ...options, body, headers: { ...FORM, ...options.headers } })

/** A refusal of the error model: the status, and `{"errors": [one or more strings]}`. */
const expectRefusal = (response: TestResponse, status: number, message?: RegExp) => {
  expect(response.status, response.text).toBe(status)
  expect(response.json?.errors, response.text).toEqual(expect.arrayContaining([expect.any(String)]))
  if (message) expect(response.json.errors.join(" | ")).toMatch(message)
}

/**
 * A request whose body is written as `chunks` (chunked transfer encoding unless the headers
 * name a Content-Length). With `endBody: false` the body is never finished, as a client that
 * announces 100 MB and sends a few bytes: the answer must come without waiting for the rest.
 */
const rawRequest = (
  method: string,
  target: string,
  options: { headers?: Record<string, string>; chunks?: ReadonlyArray<string>; endBody?: boolean } = {}
): Promise<TestResponse> =>
  new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port: server.port, method, path: target, headers: { host: HOST, ...options.headers }, agent: false },
      (response) =>
        readResponse(response, (answer) => {
          resolve(answer)
          request.destroy()
        })
    )
    // The server may answer (and close) before the body is complete: that is the point.
    request.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" || error.code === "EPIPE" ? undefined : reject(error)))
    for (const chunk of options.chunks ?? []) request.write(chunk)
    if (options.endBody !== false) request.end()
  })

describe("request body size", () => {
  it("refuses an announced 100 MB form to /oauth/token with 413 before reading it", async () => {
    const response = await rawRequest("POST", "/oauth/token", {
      headers: { ...FORM, "content-length": String(100 * 1024 * 1024) },
      chunks: ["grant_type=authorization_code&code="],
      endBody: false
    })
    expectRefusal(response, 413, /65536 bytes/)
  })

  it("refuses a chunked form to /oauth/token once it passes the OAuth limit (64 KB)", async () => {
    const response = await rawRequest("POST", "/oauth/token", {
      headers: FORM,
      chunks: ["grant_type=authorization_code&code=", ...Array.from({ length: 10 }, () => "a".repeat(10_000))]
    })
    expectRefusal(response, 413, /65536 bytes/)
  })

  it("refuses a 100 KB sign-in form, which the API limit would allow", async () => {
    const response = await server.request("POST", "/accounts/sign_in", form(`account[email]=${"a".repeat(100_000)}`))
    expectRefusal(response, 413)
  })

  it("refuses a 2 MB JSON body to the API with 413, announced or chunked", async () => {
    const big = JSON.stringify({ person: { first_name: "a".repeat(2 * 1024 * 1024) } })
    const announced = await server.request("POST", "/api/v2/desk/people", { body: big, headers: { "content-type": "application/json" }, token: ownerToken })
    expectRefusal(announced, 413, /1048576 bytes/)
    const chunked = await rawRequest("POST", "/api/v2/desk/people", {
      headers: { "content-type": "application/json", authorization: `Bearer ${ownerToken}` },
      chunks: [big.slice(0, 1_000_000), big.slice(1_000_000)]
    })
    expectRefusal(chunked, 413, /1048576 bytes/)
  })

  it("refuses a 2 MB JSON:API report query with 413 (the body HttpApi reads is bounded too)", async () => {
    const response = await rawRequest("POST", "/desk/api/v3/reports/clients/queries", {
      headers: { "content-type": "application/vnd.api+json", authorization: `Bearer ${ownerToken}` },
      chunks: ['{"data": {"type": "queries", "attributes": {"fields": [', ...Array.from({ length: 20 }, () => `"${"x".repeat(100_000)}",`), '"key"]}}}']
    })
    expectRefusal(response, 413)
  })

  it("still accepts a 200 KB JSON body on the API (under 1 MB)", async () => {
    const response = await server.request("POST", "/api/v2/desk/people", {
      body: { person: { first_name: "Ann", last_name: "Archer", notes: "n".repeat(200_000) } },
      token: ownerToken
    })
    expect(response.status).not.toBe(413)
    expect(response.status).toBeLessThan(500)
  })
})

describe("Rails-style form bodies", () => {
  it("refuses a form nested 10,000 levels deep on /oauth/token with 400, unauthenticated", async () => {
    const response = await server.request("POST", "/oauth/token", form(`client_id${"[a]".repeat(10_000)}=1`))
    expectRefusal(response, 400, /nested/)
  })

  it("refuses a form nested 33 levels deep on the API (the limit is 32)", async () => {
    const ok = await server.request("POST", "/api/v2/desk/people", form(`person${"[a]".repeat(31)}=1`, { token: ownerToken }))
    expect(ok.status).not.toBe(500)
    expect(ok.json?.errors?.join(" ") ?? "").not.toMatch(/nested/)
    const deep = await server.request("POST", "/api/v2/desk/people", form(`person${"[a]".repeat(32)}=1`, { token: ownerToken }))
    expectRefusal(deep, 400, /32 levels/)
  })

  it("refuses a form of more than 4,096 fields", async () => {
    const fields = Array.from({ length: 5_000 }, (_, i) => `f${i}=1`).join("&")
    const response = await server.request("POST", "/oauth/token", form(fields))
    expectRefusal(response, 400, /4096 fields/)
  })
})

describe("NUL characters", () => {
  it("refuses a NUL byte in a form field with 400 (no PostgreSQL encoding error)", async () => {
    const response = await server.request("POST", "/oauth/token", form("grant_type=authorization_code&client_id=test%00app&client_secret=x&code=c"))
    expectRefusal(response, 400, /NUL/)
    const signIn = await server.request("POST", "/accounts/sign_in", form(`account[email]=owner%00@bounded.test&account[password]=x`))
    expectRefusal(signIn, 400, /NUL/)
  })

  it("refuses a NUL character in a JSON string with 400", async () => {
    const response = await server.request("POST", "/oauth/token", {
      body: '{"grant_type": "authorization_code", "client_id": "test\\u0000app", "client_secret": "x", "code": "c"}',
      headers: { "content-type": "application/json" }
    })
    expectRefusal(response, 400, /NUL/)
    const person = await server.request("POST", "/api/v2/desk/people", {
      body: '{"person": {"first_name": "An\\u0000n", "last_name": "Archer"}}',
      headers: { "content-type": "application/json" },
      token: ownerToken
    })
    expectRefusal(person, 400, /NUL/)
  })

  it("does not mistake an escaped backslash before u0000 for a NUL", async () => {
    const response = await server.request("POST", "/api/v2/desk/people", {
      body: '{"person": {"first_name": "C:\\\\u0000", "last_name": "Archer"}}',
      headers: { "content-type": "application/json" },
      token: ownerToken
    })
    expect(response.status, response.text).toBeLessThan(300)
    expect(response.json.people[0].first_name).toBe("C:\\u0000")
  })

  it("refuses a NUL byte in the query string with 400", async () => {
    const response = await server.request("GET", "/api/v2/front/business?client_id=test%00app")
    expectRefusal(response, 400, /NUL/)
    const people = await server.request("GET", "/api/v2/desk/people/search?q=a%00b", { token: ownerToken })
    expectRefusal(people, 400, /NUL/)
  })
})

describe("return_to", () => {
  it("refuses a return_to with CR/LF on /oauth/logout (a header injection) with 400", async () => {
    // The CSRF token is the server's own (a page's token and its cookie), as a browser holds it.
    const page = await server.request("GET", "/accounts/sign_in")
    const token = /name="authenticity_token" type="hidden" value="([^"]+)"/.exec(page.text)![1]!
    const cookie = page.headers["set-cookie"]!.map((c) => c.split(";")[0]).join("; ")
    const response = await server.request(
      "POST",
      "/oauth/logout",
      form(`csrf_token=${encodeURIComponent(token)}&return_to=${encodeURIComponent("/oauth/authorize?a=1\r\nSet-Cookie: pwned=1")}`, {
        headers: { cookie }
      })
    )
    expectRefusal(response, 400, /return_to/)
    expect(response.headers["set-cookie"]?.join(";") ?? "").not.toMatch(/pwned/)
  })

  it("refuses a return_to with control characters on a successful sign-in with 400", async () => {
    const page = await server.request("GET", "/accounts/sign_in")
    const token = /name="authenticity_token" type="hidden" value="([^"]+)"/.exec(page.text)![1]!
    const cookie = page.headers["set-cookie"]!.map((c) => c.split(";")[0]).join("; ")
    const response = await server.request(
      "POST",
      "/accounts/sign_in",
      form(
        `authenticity_token=${token}&account[email]=${encodeURIComponent(EMAIL)}&account[password]=${encodeURIComponent(PASSWORD)}` +
          `&return_to=${encodeURIComponent("/oauth/authorize?client_id=test-app\r\nX-Injected: 1")}`,
        { headers: { cookie } }
      )
    )
    expectRefusal(response, 400, /return_to/)
    expect(response.headers["x-injected"]).toBeUndefined()
  })
})

describe("the 500s that remain", () => {
  it("answers a request target the URL parser refuses (`//`) with 400, not a 500", async () => {
    const response = await rawRequest("GET", "//", { headers: { "x-request-id": "bounded-input-400" } })
    expectRefusal(response, 400, /path could not be read/)
    expect(response.headers["x-request-id"]).toBe("bounded-input-400")
  })

  it("are logged with their request id and answered with the error model (a database failure)", async () => {
    // A table gone from under the service: the repo's failure becomes a defect, a 500.
    await server.pool.query("alter table locations rename to locations_away")
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void lines.push(args.map(String).join(" ")))
    let response: TestResponse
    try {
      response = await server.request("GET", "/api/v2/desk/locations", { token: ownerToken, headers: { "x-request-id": "bounded-input-500" } })
    } finally {
      spy.mockRestore()
      await server.pool.query("alter table locations_away rename to locations")
    }
    expectRefusal(response, 500, /bounded-input-500/)
    expect(response.headers["x-request-id"]).toBe("bounded-input-500")
    const logged = lines.map((line) => JSON.parse(line) as { message?: unknown; annotations?: Record<string, unknown> })
    expect(logged).toEqual(expect.arrayContaining([expect.objectContaining({ annotations: expect.objectContaining({ request_id: "bounded-input-500" }) })]))
  })
})
