import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkTargetAddresses, guardedLookup, isPublicAddress, parseTarget } from "../../src/webhooks/targets.ts"
import { postNotification } from "../../src/webhooks/transport.ts"
import { createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Safety of targets: only http(s), and never private, loopback or link-local addresses unless
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS is set, both when subscribing and when connecting.
 */

describe("address ranges", () => {
  it("refuses loopback, private, link-local, shared, multicast, documentation and reserved addresses", () => {
    for (const address of [
      "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
      "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.10", "198.18.0.1",
      "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "2001:db8::1",
      "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2002:c0a8:101::1", "fe80::1%eth0"
    ]) {
      expect(isPublicAddress(address), address).toBe(false)
    }
  })

  it("allows public addresses", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::6810:85e5", "::ffff:93.184.216.34", "64:ff9b::808:808"]) {
      expect(isPublicAddress(address), address).toBe(true)
    }
  })

  it("parses targets: http(s) only, absolute, without credentials", () => {
    expect(parseTarget("https://example.test/hooks")).toHaveProperty("url")
    expect(parseTarget("ftp://example.test/")).toEqual({ problem: "scheme" })
    expect(parseTarget("javascript:alert(1)")).toEqual({ problem: "scheme" })
    expect(parseTarget("https://a:b@example.test/")).toEqual({ problem: "credentials" })
    expect(parseTarget("example.test/hooks")).toEqual({ problem: "invalid" })
    expect(parseTarget(`https://example.test/${"x".repeat(2048)}`)).toEqual({ problem: "invalid" })
  })

  it("resolves names before judging them", async () => {
    expect(await checkTargetAddresses(new URL("http://localhost:8080/"), false)).toBe("private")
    expect(await checkTargetAddresses(new URL("http://localhost:8080/"), true)).toBeUndefined()
    expect(await checkTargetAddresses(new URL("http://[::1]/"), false)).toBe("private")
    expect(await checkTargetAddresses(new URL("http://no-such-host.invalid/"), true)).toBe("unresolvable")
  })

  it("the connection-time lookup refuses a name that resolves to a private address (DNS rebinding)", async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup(false)("localhost", {}, (e) => resolve(e)))
    expect(error?.message).toContain("non-public")
  })
})

describe("delivery-time check", () => {
  let receiver: http.Server
  let port: number
  let hits = 0
  beforeAll(async () => {
    receiver = http.createServer((_, response) => {
      hits++
      response.end("ok")
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    port = (receiver.address() as AddressInfo).port
  })
  afterAll(async () => new Promise<void>((resolve) => receiver.close(() => resolve())))

  it("never connects to a private address when they are not allowed, by IP or by name", async () => {
    for (const target of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
      const result = await postNotification(target, {}, "{}", { allowPrivate: false })
      expect(result.statusCode, target).toBeNull()
      expect(result.error, target).toMatch(/^target refused/)
    }
    expect(hits).toBe(0)
    const allowed = await postNotification(`http://localhost:${port}/`, {}, "{}", { allowPrivate: true })
    expect(allowed.statusCode).toBe(200)
    expect(hits).toBe(1)
  })

  it("gives up after the timeout", async () => {
    const silent = http.createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    const result = await postNotification(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, {}, "{}", {
      allowPrivate: true,
      timeoutMs: 200
    })
    expect(result.statusCode).toBeNull()
    expect(result.error).toContain("no complete answer within 0.2 s")
    silent.closeAllConnections()
    await new Promise<void>((resolve) => silent.close(() => resolve()))
  })
})

describe("POST /api/v3/webhooks without WEBHOOKS_ALLOW_PRIVATE_TARGETS", () => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startTestServer({ webhooksAllowPrivateTargets: false })
    const business = await createBusiness(server.pool, { subdomain: "demo" })
    await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
    token = await createToken(server.pool, (await createPerson(server.pool, business.id, { role: "owner" })).accountId, business.id)
  })
  afterAll(async () => server?.close())

  it("refuses targets on private and loopback addresses (422)", async () => {
    for (const [target, host] of [
      ["http://127.0.0.1:3000/hooks", "127.0.0.1"],
      ["http://localhost/hooks", "localhost"],
      ["https://[::1]/hooks", "::1"],
      ["http://169.254.169.254/latest/meta-data", "169.254.169.254"],
      ["http://10.0.0.5/", "10.0.0.5"]
    ]) {
      const response = await server.request("POST", "/api/v3/webhooks", {
        token,
        body: { data: { type: "webhooks", attributes: { target, topic: "person.created" } } }
      })
      expect(response.status, target).toBe(422)
      expect(response.json.errors, target).toEqual([
        `The host of target, ${host}, is a private, loopback or link-local address, which webhooks cannot reach`
      ])
    }
  })
})
