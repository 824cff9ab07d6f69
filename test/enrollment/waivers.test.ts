import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createDependent } from "../people/fixtures.ts"

/** Waivers over HTTP: a person's list in both modes, client reach, pagination. */
let server: TestServer
let businessId: number
let ownerToken: string
let clientToken: string
let otherToken: string
let client: { personId: number }
let dependentId: number
let otherPersonId: number
let foreignPerson: number

const request = (method: string, path: string, token?: string) => server.request(method, path, token ? { token } : {})

const addWaiver = async (personId: number, fields: { name: string; type?: string; signer_id?: number | null; accepted?: boolean; signing_url?: string | null }) => {
  const { rows } = await server.pool.query(
    `insert into waivers (business_id, person_id, name, type, signer_id, signing_url, accepted) values ($1, $2, $3, $4, $5, $6, $7) returning id`,
    [businessId, personId, fields.name, fields.type ?? "Waiver", fields.signer_id ?? null, fields.signing_url ?? null, fields.accepted ?? false]
  )
  return Number(rows[0].id)
}

beforeAll(async () => {
  server = await startTestServer()
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  ownerToken = await createToken(server.pool, (await createPerson(server.pool, businessId, { role: "standard" })).accountId, businessId)
  const clientAccount = await createPerson(server.pool, businessId)
  client = clientAccount
  clientToken = await createToken(server.pool, clientAccount.accountId, businessId)
  dependentId = await createDependent(server.pool, businessId, client.personId)
  const otherAccount = await createPerson(server.pool, businessId)
  otherPersonId = otherAccount.personId
  otherToken = await createToken(server.pool, otherAccount.accountId, businessId)
  foreignPerson = (await createPerson(server.pool, elsewhere)).personId
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("waivers", () => {
  it("lists a person's waivers in both modes", async () => {
    const adult = await addWaiver(client.personId, { name: "Adult waiver", signer_id: client.personId, accepted: true })
    const pending = await addWaiver(client.personId, { name: "Hot room waiver", signing_url: "https://sign.example.test/w/2" })
    const expected = [
      { id: adult, name: "Adult waiver", type: "Waiver", signer_id: client.personId, signing_url: null, accepted: true },
      { id: pending, name: "Hot room waiver", type: "Waiver", signer_id: null, signing_url: "https://sign.example.test/w/2", accepted: false }
    ]
    const front = await request("GET", `/api/v2/front/people/${client.personId}/waivers`, clientToken)
    expect(front.status, front.text).toBe(200)
    expect(front.json).toEqual({ waivers: expected, total_count: 2 })
    expect(front.headers["cache-control"]).toContain("private")
    const desk = await request("GET", `/api/v2/desk/people/${client.personId}/waivers`, ownerToken)
    expect(desk.json).toEqual({ waivers: expected, total_count: 2 })
  })

  it("lists a dependent's guardian waiver for their provider", async () => {
    const guardian = await addWaiver(dependentId, { name: "Minor waiver", type: "GuardianWaiver", signer_id: client.personId, accepted: true })
    const response = await request("GET", `/api/v2/front/people/${dependentId}/waivers`, clientToken)
    expect(response.json.waivers).toEqual([
      { id: guardian, name: "Minor waiver", type: "GuardianWaiver", signer_id: client.personId, signing_url: null, accepted: true }
    ])
  })

  it("paginates", async () => {
    for (let i = 0; i < 3; i++) await addWaiver(otherPersonId, { name: `Waiver ${i}` })
    const first = await request("GET", `/api/v2/desk/people/${otherPersonId}/waivers?per_page=2`, ownerToken)
    expect(first.json.waivers.map((w: any) => w.name)).toEqual(["Waiver 0", "Waiver 1"])
    expect(first.json.total_count).toBe(3)
    expect(new URL(first.json.next).searchParams.get("page")).toBe("2")
    const empty = await request("GET", `/api/v2/desk/people/${dependentId}/waivers?page=5`, ownerToken)
    expect(empty.json.waivers).toEqual([])
    expect((await request("GET", `/api/v2/desk/people/${otherPersonId}/waivers?page=0`, ownerToken)).status).toBe(400)
  })

  it("keeps other people's waivers from clients", async () => {
    const response = await request("GET", `/api/v2/front/people/${otherPersonId}/waivers`, clientToken)
    expect(response.status).toBe(404)
    expect(response.json.errors).toEqual([`Person ${otherPersonId} not found`])
    expect((await request("GET", `/api/v2/front/people/${dependentId}/waivers`, otherToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/people/${client.personId}/waivers?client_id=test-app`)).status).toBe(401)
  })

  it("is not found for unknown people or another business's, and staff-only in desk mode", async () => {
    expect((await request("GET", `/api/v2/desk/people/999999/waivers`, ownerToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/desk/people/${foreignPerson}/waivers`, ownerToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/people/${foreignPerson}/waivers`, clientToken)).status).toBe(404)
    expect((await request("GET", `/api/v2/desk/people/${client.personId}/waivers`, clientToken)).status).toBe(403)
    expect((await request("GET", `/api/v2/desk/people/${client.personId}/waivers`)).status).toBe(401)
  })
})
