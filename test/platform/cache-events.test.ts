import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * The caches read on every request follow writes made behind the service's back (another
 * process, a CLI, SQL) within a second: the writes notify, the listener drops the entries, and a
 * listener that lost its connection drops everything when it is back.
 */
let server: TestServer
let business: { id: number; subdomain: string }
let owner: { accountId: number }

beforeAll(async () => {
  server = await startTestServer()
  business = await createBusiness(server.pool, { subdomain: "demo" })
  owner = await createPerson(server.pool, business.id, { role: "owner" })
})
afterAll(async () => server?.close())

/** The status `request` answers once it is `expected`, or the last one after a second. */
const withinASecond = async (request: () => Promise<{ status: number }>, expected: number) => {
  const deadline = Date.now() + 1_000
  let status = (await request()).status
  while (status !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    status = (await request()).status
  }
  return status
}

describe("cache notifications", () => {
  it("an OAuth application created after its client_id was refused is accepted within a second", async () => {
    const call = () => server.request("GET", "/api/v2/front/business?client_id=late-app")
    expect((await call()).status).toBe(401)
    await createApplication(server.pool, "late-app")
    expect(await withinASecond(call, 200)).toBe(200)
  })

  it("a business created after its host was answered 404 is served within a second", async () => {
    await createApplication(server.pool, "test-app")
    const call = () => server.request("GET", "/api/v2/front/business?client_id=test-app", { host: "newcomer.studio.test" })
    expect((await call()).status).toBe(404)
    await createBusiness(server.pool, { subdomain: "newcomer" })
    expect(await withinASecond(call, 200)).toBe(200)
  })

  it("a token revoked while the listener was disconnected is refused within a second of its return", async () => {
    const token = await createToken(server.pool, owner.accountId, business.id)
    const call = () => server.request("GET", "/api/v2/desk/business", { token })
    expect((await call()).status).toBe(200)
    // Cut the listener's connection, and revoke before it is back: the notification is lost.
    const cut = await server.pool.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = 'studio-service cache listener' and datname = current_database()`
    )
    expect(cut.rowCount).toBeGreaterThan(0)
    await server.pool.query("update access_tokens set revoked_at = now() where token_hash = sha256(convert_to($1, 'UTF8'))", [token])
    expect(await withinASecond(call, 401)).toBe(401)
    // It listens again: the next revocation is heard as well.
    const second = await createToken(server.pool, owner.accountId, business.id)
    expect((await server.request("GET", "/api/v2/desk/business", { token: second })).status).toBe(200)
    await server.pool.query("update access_tokens set revoked_at = now() where token_hash = sha256(convert_to($1, 'UTF8'))", [second])
    expect(await withinASecond(() => server.request("GET", "/api/v2/desk/business", { token: second }), 401)).toBe(401)
  })
})
