import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sendMailTask } from "../../workers/tasks/send_mail.ts"
import {
  createApplication,
  createBusiness,
  createCustomField,
  createLocation,
  createPerson,
  createToken
} from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { startReceiver } from "../webhooks/receiver.ts"
import { createDependent, optionIds, pendingJobs } from "./fixtures.ts"

let server: TestServer
let business: { id: number; subdomain: string }
let owner: Awaited<ReturnType<typeof createPerson>>
let ownerToken: string
let managerToken: string
let standardToken: string
let limitedToken: string
let limited: Awaited<ReturnType<typeof createPerson>>
let clientToken: string
let foreignId: number
let location: { id: number }
let fields: { text: number; hidden: number; size: number; heard: number }
let sizes: Record<string, number>
let heard: Record<string, number>

type Person = { id: number; [key: string]: unknown }
const form = (body: string) => ({ body, headers: { "content-type": "application/x-www-form-urlencoded" } })
const post = (body: unknown, token = ownerToken) => server.request("POST", "/api/v2/desk/people", { token, body })
const put = (id: number, body: unknown, token = ownerToken) => server.request("PUT", `/api/v2/desk/people/${id}`, { token, body })
const get = (id: number) => server.request("GET", `/api/v2/desk/people/${id}`, { token: ownerToken })
/** Drops what differs between two creations of the same person. */
const comparable = (person: Person) => {
  const { id: _id, created_at: _c, updated_at: _u, joined_at: _j, ...rest } = person
  return rest
}

beforeAll(async () => {
  server = await startTestServer()
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio", default_locale: "en" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  location = await createLocation(server.pool, business.id, { name: "Downtown", slug: "downtown" })
  owner = await createPerson(server.pool, business.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  managerToken = await createToken(server.pool, (await createPerson(server.pool, business.id, { role: "manager" })).accountId, business.id)
  standardToken = await createToken(server.pool, (await createPerson(server.pool, business.id, { role: "standard" })).accountId, business.id)
  limited = await createPerson(server.pool, business.id, { role: "limited" })
  limitedToken = await createToken(server.pool, limited.accountId, business.id)
  clientToken = await createToken(server.pool, (await createPerson(server.pool, business.id)).accountId, business.id)
  foreignId = (await createPerson(server.pool, elsewhere.id)).personId
  fields = {
    text: (await createCustomField(server.pool, business.id, { name: "Emergency contact", data_type: "text", position: 1 })).id,
    hidden: (await createCustomField(server.pool, business.id, { name: "Owes a towel", data_type: "boolean", hidden: true, position: 2 })).id,
    size: (await createCustomField(server.pool, business.id, { name: "Shirt size", data_type: "select", options: ["S", "M", "L"], position: 3 }))
      .id,
    heard: (
      await createCustomField(server.pool, business.id, {
        name: "Heard about us",
        data_type: "select",
        multi_select: true,
        options: ["Friend", "Web", "Yes, a flyer"],
        position: 4
      })
    ).id
  }
  sizes = await optionIds(server.pool, fields.size)
  heard = await optionIds(server.pool, fields.heard)
})
afterAll(async () => server?.close())

describe("POST /api/v2/desk/people", () => {
  it("create a person from a JSON body (201) with every request attribute", async () => {
    const response = await post({
      person: {
        pronoun: "she/her",
        first_name: " Marie ",
        middle_name: "Salomea",
        last_name: "Curie",
        email: "marie@example.test",
        address: "1 Rue Pierre",
        phone: "+33 1 23 45 67 89",
        birthdate: "1867-11-07",
        guardian_name: "Bronisława",
        guardian_email: "bronislawa@example.test",
        location_id: location.id,
        joined_at: "2015-07-06T00:00:00-0700",
        skip_complimentary_passes: true,
        custom_fields: [
          { id: fields.text, value: "Pierre" },
          { id: fields.hidden, value: "yes" },
          { id: fields.size, value: "m" },
          { id: fields.heard, value: [heard.Friend, "Web"] }
        ]
      }
    })
    expect(response.status).toBe(201)
    const person = response.json.people[0]
    expect(person).toMatchObject({
      name: "Marie Curie",
      first_name: "Marie",
      middle_name: "Salomea",
      last_name: "Curie",
      pronoun: "she/her",
      email: "marie@example.test",
      address: "1 Rue Pierre",
      phone: "+33 1 23 45 67 89",
      birthdate: "1867-11-07",
      guardian_name: "Bronisława",
      guardian_email: "bronislawa@example.test",
      location_id: location.id,
      location: { id: location.id, name: "Downtown", slug: "downtown" },
      joined_at: "2015-07-06T07:00:00Z",
      is_member: false,
      deleted_at: null,
      business_id: business.id,
      dependents: [],
      providers: [],
      custom_fields: [
        { id: fields.text, name: "Emergency contact", data_type: "text", value: "Pierre", custom_field_option_ids: [] },
        { id: fields.hidden, name: "Owes a towel", data_type: "boolean", value: "true", custom_field_option_ids: [] },
        { id: fields.size, name: "Shirt size", data_type: "select", value: "M", custom_field_option_ids: [sizes.M] },
        { id: fields.heard, name: "Heard about us", data_type: "select", value: "Friend, Web", custom_field_option_ids: [heard.Friend, heard.Web] }
      ]
    })
    expect((await get(person.id)).json.people[0]).toEqual(person)
    // The person is linked to the account of the address (created, without a password).
    const { rows } = await server.pool.query(
      `select a.email::text, a.password_hash from people p join accounts a on a.id = p.account_id where p.id = $1`,
      [person.id]
    )
    expect(rows).toEqual([{ email: "marie@example.test", password_hash: null }])
  })

  it("show only the visible custom fields to the person in client mode", async () => {
    const created = await post({
      person: { first_name: "Rosalind", last_name: "Franklin", email: "rosalind@example.test", custom_fields: [
        { id: fields.text, value: "Muriel" },
        { id: fields.hidden, value: true }
      ] }
    })
    const { rows } = await server.pool.query(`select account_id from people where id = $1`, [created.json.people[0].id])
    const token = await createToken(server.pool, Number(rows[0].account_id), business.id)
    const me = await server.request("GET", "/api/v2/front/people/me", { token })
    expect(me.json.people[0].custom_fields.map((f: { id: number }) => f.id)).toEqual([fields.text])
    expect(created.json.people[0].custom_fields.map((f: { id: number }) => f.id)).toEqual([fields.text, fields.hidden])
  })

  it("create the same person from a Rails-style form body as from JSON", async () => {
    const json = await post({ person: { first_name: "A", last_name: "B", email: "a@b.test" } })
    expect(json.status).toBe(201)
    // The address is unique among live people: free it by deleting the first one.
    expect((await server.request("DELETE", `/api/v2/desk/people/${json.json.people[0].id}`, { token: ownerToken })).status).toBe(204)
    const viaForm = await server.request(
      "POST",
      "/api/v2/desk/people",
      { token: ownerToken, ...form("person[first_name]=A&person[last_name]=B&person[email]=a@b.test") }
    )
    expect(viaForm.status).toBe(201)
    expect(viaForm.json.people[0].id).not.toBe(json.json.people[0].id)
    expect(comparable(viaForm.json.people[0])).toEqual(comparable(json.json.people[0]))
  })

  it("decode forms with dependents, custom fields and booleans as strings", async () => {
    const body = [
      "person[first_name]=Pat",
      "person[last_name]=Parent",
      `person[location_id]=${location.id}`,
      `person[custom_fields][][id]=${fields.heard}`,
      `person[custom_fields][][value]=${heard.Friend},${heard.Web}`,
      `person[custom_fields][][id]=${fields.size}`,
      "person[custom_fields][][value]=L",
      "person[dependents][][first_name]=Kim",
      "person[dependents][][last_name]=Parent",
      "person[dependents][][birthdate]=2016-02-29",
      "person[dependents][][first_name]=Lou",
      "person[dependents][][last_name]=Parent",
      "person[send_invite]=false"
    ].join("&")
    const response = await server.request("POST", "/api/v2/desk/people.json", { token: ownerToken, ...form(body) })
    expect(response.status).toBe(201)
    const person = response.json.people[0]
    expect(person.custom_fields.map((f: { value: string }) => f.value)).toEqual(["L", "Friend, Web"])
    expect(person.dependents.map((d: { name: string }) => d.name)).toEqual(["Kim Parent", "Lou Parent"])
    const kim = (await get(person.dependents[0].id)).json.people[0]
    // A dependent lives where the provider does unless told otherwise.
    expect(kim).toMatchObject({ birthdate: "2016-02-29", location_id: location.id, providers: [{ id: person.id, name: "Pat Parent" }] })
  })

  it("create dependents with their own attributes and custom field values", async () => {
    const response = await post({
      person: {
        first_name: "Gina",
        last_name: "Guardian",
        dependents: [{ first_name: "Dan", last_name: "Guardian", email: "dan@example.test", custom_fields: [{ id: fields.text, value: "Gina" }] }]
      }
    })
    expect(response.status).toBe(201)
    const dan = (await get(response.json.people[0].dependents[0].id)).json.people[0]
    expect(dan).toMatchObject({ email: "dan@example.test", custom_fields: [expect.objectContaining({ value: "Gina" })] })
  })

  it("let any staff member create, a limited one too, but not a client or a stranger", async () => {
    expect((await post({ person: { first_name: "By", last_name: "Limited" } }, limitedToken)).status).toBe(201)
    expect((await post({ person: { first_name: "By", last_name: "Standard" } }, standardToken)).status).toBe(201)
    expect((await post({ person: { first_name: "By", last_name: "Client" } }, clientToken)).status).toBe(403)
    const anonymous = await server.request("POST", "/api/v2/desk/people?client_id=test-app", { body: { person: { first_name: "X", last_name: "Y" } } })
    expect(anonymous.status).toBe(401)
    const wrongHost = await server.request("POST", "/api/v2/desk/people", {
      host: `elsewhere.${TEST_BASE_DOMAIN}`,
      token: ownerToken,
      body: { person: { first_name: "X", last_name: "Y" } }
    })
    expect(wrongHost.status).toBe(401)
  })

  it("answer 422 with one message per failed rule, naming each field", async () => {
    await post({ person: { first_name: "Taken", last_name: "Address", email: "taken@example.test" } })
    const response = await post({
      person: {
        first_name: "  ",
        email: "TAKEN@example.test",
        location_id: 999999,
        middle_name: "x".repeat(101),
        custom_fields: [
          { id: 999999, value: "x" },
          { id: fields.hidden, value: "perhaps" },
          { id: fields.size, value: ["S", "M"] },
          { id: fields.heard, value: "Friend, Radio" }
        ],
        dependents: [{ first_name: "Kid", email: "not-an-address" }]
      }
    })
    expect(response.status).toBe(422)
    expect(response.json.errors).toEqual([
      "first_name can't be blank",
      "last_name can't be blank",
      "middle_name is too long (maximum is 100 characters)",
      "email has already been taken",
      "location_id 999999 does not exist",
      "Custom field 999999 does not exist",
      "Owes a towel must be true or false",
      "Shirt size takes a single option",
      'Heard about us has no option "Radio"',
      "dependents[0].last_name can't be blank",
      "dependents[0].email is invalid"
    ])
    const german = await post({ person: { first_name: "", last_name: "B", email: "taken@example.test" } }, ownerToken)
    expect(german.json.errors).toEqual(["first_name can't be blank", "email has already been taken"])
    const translated = await server.request("POST", "/api/v2/desk/people", {
      token: ownerToken,
      headers: { "x-fd-locale": "de" },
      body: { person: { first_name: "A", last_name: "B", email: "taken@example.test" } }
    })
    expect(translated.json.errors).toEqual(["email ist bereits vergeben"])
  })

  it("refuse the same new address twice in one request", async () => {
    const response = await post({
      person: { first_name: "Twin", last_name: "One", email: "twin@example.test", dependents: [{ first_name: "Twin", last_name: "Two", email: "Twin@example.test" }] }
    })
    expect(response.status).toBe(422)
    expect(response.json.errors).toEqual(["dependents[0].email has already been taken"])
  })

  it("answer 400 for undecodable input, naming each field", async () => {
    const response = await post({
      person: { first_name: 7, last_name: "B", location_id: "abc", birthdate: "2015-02-30", joined_at: "tomorrow", send_invite: "maybe", custom_fields: "none" }
    })
    expect(response.status).toBe(400)
    expect(response.json.errors).toEqual(
      expect.arrayContaining([
        "first_name must be a string",
        "location_id must be an integer",
        "birthdate must be a date such as 2015-07-06",
        expect.stringMatching(/^joined_at must be an ISO 8601 timestamp/),
        "send_invite must be true or false",
        "custom_fields must be a list"
      ])
    )
    const unwrapped = await server.request("POST", "/api/v2/desk/people", { token: ownerToken, body: { first_name: "A", last_name: "B" } })
    expect(unwrapped.status).toBe(400)
    expect(unwrapped.json.errors).toEqual(['The request body must be wrapped in "person"'])
  })
})

describe("send_invite", () => {
  it("enqueue exactly one invitation mail whose link lets the person choose a password", async () => {
    const before = (await pendingJobs(server.pool, "send_mail")).length
    const response = await post({ person: { first_name: "Ivy", last_name: "Invited", email: "ivy@example.test", send_invite: true } })
    expect(response.status).toBe(201)
    const jobs = await pendingJobs(server.pool, "send_mail")
    expect(jobs).toHaveLength(before + 1)
    const payload = jobs[jobs.length - 1] as { to: string; template: string; subject: string; text: string; business_id: number }
    expect(payload).toMatchObject({ to: "ivy@example.test", template: "invitation", subject: "You are invited to Demo Studio", business_id: business.id })
    expect(payload.text).toContain("Hello Ivy")
    expect(payload.text).toMatch(new RegExp(`http://demo\\.${TEST_BASE_DOMAIN.replace(".", "\\.")}/oauth/password/edit\\?token=`))
    const { rows } = await server.pool.query(
      `select count(*)::int as n from account_tokens t join people p on p.account_id = t.account_id
       where p.id = $1 and t.purpose = 'password_reset' and t.expires_at > now() + interval '6 days'`,
      [response.json.people[0].id]
    )
    expect(rows[0].n).toBe(1)
    // Running the task delivers it to the development mailbox.
    await server.runtime.runPromise(sendMailTask(payload) as never)
    const mail = await server.pool.query(`select subject, template from mail_messages where to_address = 'ivy@example.test'`)
    expect(mail.rows).toEqual([{ subject: "You are invited to Demo Studio", template: "invitation" }])
  })

  it("enqueue nothing without send_invite, and nothing when the request fails", async () => {
    const before = (await pendingJobs(server.pool, "send_mail")).length
    await post({ person: { first_name: "No", last_name: "Invite", email: "no-invite@example.test" } })
    const failed = await post({ person: { first_name: "Bad", last_name: "Request", email: "bad@example.test", send_invite: true, location_id: 999999 } })
    expect(failed.status).toBe(422)
    expect(await pendingJobs(server.pool, "send_mail")).toHaveLength(before)
    const { rows } = await server.pool.query(`select count(*)::int as n from people where email = 'bad@example.test'`)
    expect(rows[0].n).toBe(0)
  })

  it("need an e-mail address", async () => {
    const response = await post({ person: { first_name: "No", last_name: "Address", send_invite: "1" } })
    expect(response.status).toBe(422)
    expect(response.json.errors).toEqual(["send_invite needs an e-mail address to send the invitation to"])
  })
})

describe("PUT /api/v2/desk/people/:id", () => {
  it("update attributes; absent ones stay, null or empty clears", async () => {
    const created = (await post({
      person: { first_name: "Una", middle_name: "M", last_name: "Updated", phone: "555", custom_fields: [{ id: fields.text, value: "x" }, { id: fields.size, value: "S" }] }
    })).json.people[0]
    await server.pool.query(`update people set updated_at = '2020-01-01T00:00:00Z' where id = $1`, [created.id])
    const response = await put(created.id, {
      person: {
        first_name: "Una-Maria",
        middle_name: null,
        phone: "",
        birthdate: "2000-01-31",
        custom_fields: [{ id: fields.text, value: null }, { id: fields.size, value: sizes.L }, { id: fields.hidden, value: false }]
      }
    })
    expect(response.status).toBe(200)
    expect(response.json.people[0]).toMatchObject({
      first_name: "Una-Maria",
      middle_name: null,
      last_name: "Updated",
      phone: null,
      birthdate: "2000-01-31",
      custom_fields: [
        { id: fields.hidden, value: "false" },
        { id: fields.size, value: "L", custom_field_option_ids: [sizes.L] }
      ]
    })
    expect(response.json.people[0].updated_at).not.toBe("2020-01-01T00:00:00Z")
    const viaForm = await server.request("PUT", `/api/v2/desk/people/${created.id}`, {
      token: ownerToken,
      ...form("person[last_name]=Formed&person[birthdate]=")
    })
    expect(viaForm.json.people[0]).toMatchObject({ first_name: "Una-Maria", last_name: "Formed", birthdate: null })
  })

  it("keep e-mail addresses unique on update, the person's own address aside", async () => {
    await post({ person: { first_name: "First", last_name: "Owner", email: "first-owner@example.test" } })
    const other = (await post({ person: { first_name: "Second", last_name: "Owner", email: "second@example.test" } })).json.people[0]
    const taken = await put(other.id, { person: { email: "First-Owner@example.test" } })
    expect(taken.status).toBe(422)
    expect(taken.json.errors).toEqual(["email has already been taken"])
    const own = await put(other.id, { person: { email: "Second@example.test" } })
    expect(own.status).toBe(200)
    expect(own.json.people[0].email).toBe("Second@example.test")
    expect((await put(other.id, { person: { email: "nope" } })).json.errors).toEqual(["email is invalid"])
  })

  it("link an account when a person without one gets an address, and invite them", async () => {
    const created = (await post({ person: { first_name: "Late", last_name: "Address" } })).json.people[0]
    const before = (await pendingJobs(server.pool, "send_mail")).length
    const response = await put(created.id, { person: { email: "late@example.test", send_invite: true } })
    expect(response.status).toBe(200)
    expect(await pendingJobs(server.pool, "send_mail")).toHaveLength(before + 1)
    const { rows } = await server.pool.query(`select a.email::text from people p join accounts a on a.id = p.account_id where p.id = $1`, [
      created.id
    ])
    expect(rows).toEqual([{ email: "late@example.test" }])
  })

  it("link one account when the same address arrives in ten concurrent updates (a double submit)", async () => {
    const created = (await post({ person: { first_name: "Twice", last_name: "Sent" } })).json.people[0]
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => put(created.id, { person: { email: "twice@example.test", send_invite: true } }))
    )
    expect(answers.map((answer) => answer.status), answers.map((answer) => answer.text).join("\n")).toEqual(Array(10).fill(200))
    const { rows } = await server.pool.query(`select a.email::text from people p join accounts a on a.id = p.account_id where p.id = $1`, [
      created.id
    ])
    expect(rows).toEqual([{ email: "twice@example.test" }])
  })

  it("replace the dependents with dependent_ids, taking a dependent from another provider", async () => {
    const parent = (await post({ person: { first_name: "Pa", last_name: "Rent", dependents: [{ first_name: "Old", last_name: "Kid" }] } })).json.people[0]
    const other = (await post({ person: { first_name: "Other", last_name: "Parent", dependents: [{ first_name: "Moved", last_name: "Kid" }] } }))
      .json.people[0]
    const loose = (await post({ person: { first_name: "Loose", last_name: "Kid" } })).json.people[0]
    const moved = other.dependents[0].id
    const response = await put(parent.id, { person: { dependent_ids: [loose.id, moved] } })
    expect(response.status).toBe(200)
    expect(response.json.people[0].dependents.map((d: Person) => d.id)).toEqual([loose.id, moved].sort((a, b) => a - b))
    expect((await get(moved)).json.people[0].providers).toEqual([{ id: parent.id, name: "Pa Rent" }])
    expect((await get(other.id)).json.people[0].dependents).toEqual([])
    // The old dependent is no longer one, but is still a person.
    expect((await get(parent.dependents[0].id)).json.people[0]).toMatchObject({ providers: [], deleted_at: null })
    // Absent: unchanged. A form's empty list: all removed.
    expect((await put(parent.id, { person: { first_name: "Pa" } })).json.people[0].dependents).toHaveLength(2)
    const cleared = await server.request("PUT", `/api/v2/desk/people/${parent.id}`, { token: ownerToken, ...form("person[dependent_ids][]=") })
    expect(cleared.json.people[0].dependents).toEqual([])
  })

  it("set and remove the single provider with provider_ids", async () => {
    const provider = (await post({ person: { first_name: "Pro", last_name: "Vider" } })).json.people[0]
    const kid = (await post({ person: { first_name: "De", last_name: "Pendent" } })).json.people[0]
    const set = await put(kid.id, { person: { provider_ids: [provider.id] } })
    expect(set.json.people[0].providers).toEqual([{ id: provider.id, name: "Pro Vider" }])
    expect((await get(provider.id)).json.people[0].dependents).toEqual([{ id: kid.id, name: "De Pendent" }])
    const removed = await put(kid.id, { person: { provider_ids: [] } })
    expect(removed.json.people[0].providers).toEqual([])
  })

  it("refuse impossible relationships with a 422 per rule", async () => {
    const a = (await post({ person: { first_name: "Al", last_name: "Pha", dependents: [{ first_name: "Be", last_name: "Ta" }] } })).json.people[0]
    const b = a.dependents[0].id
    const c = (await post({ person: { first_name: "Ga", last_name: "Mma" } })).json.people[0]
    const self = await put(a.id, { person: { dependent_ids: [a.id], provider_ids: [c.id, foreignId] } })
    expect(self.status).toBe(422)
    expect(self.json.errors).toEqual([
      "dependent_ids cannot name the person themself",
      `provider_ids ${foreignId} does not exist`,
      "provider_ids can name only one provider"
    ])
    // b is a's dependent: it cannot become a's provider too.
    const bothWays = await put(a.id, { person: { provider_ids: [b] } })
    expect(bothWays.status).toBe(422)
    expect(bothWays.json.errors).toEqual([`Person ${b} cannot be both a provider and a dependent of this person`])
    expect((await get(a.id)).json.people[0].providers).toEqual([])
  })

  it("answer 404 for unknown, deleted and other businesses' people; refuse the wrong mode", async () => {
    expect((await put(999999, { person: { first_name: "X" } })).status).toBe(404)
    const foreign = await put(foreignId, { person: { first_name: "X" } })
    expect(foreign.status).toBe(404)
    expect(foreign.json).toEqual({ errors: [`Person ${foreignId} not found`] })
    expect((await put(owner.personId, { person: { first_name: "X" } }, clientToken)).status).toBe(403)
    expect((await server.request("PUT", `/api/v2/desk/people/${owner.personId}`, { body: { person: { first_name: "X" } } })).status).toBe(401)
    expect((await put(owner.personId, { person: { first_name: "" } })).json.errors).toEqual(["first_name can't be blank"])
  })
})

describe("DELETE /api/v2/desk/people/:id", () => {
  it("soft-delete a person (204): found by id with deleted_at, gone from lists, search and client mode", async () => {
    const created = (await post({ person: { first_name: "Del", last_name: "Eted", email: "deleted@example.test" } })).json.people[0]
    const { rows } = await server.pool.query(`select account_id from people where id = $1`, [created.id])
    const token = await createToken(server.pool, Number(rows[0].account_id), business.id)
    const response = await server.request("DELETE", `/api/v2/desk/people/${created.id}`, { token: managerToken })
    expect(response.status).toBe(204)
    expect(response.text).toBe("")
    expect((await get(created.id)).json.people[0].deleted_at).toMatch(/Z$/)
    const list = await server.request("GET", "/api/v2/desk/people?per_page=100", { token: ownerToken })
    expect(list.json.people.map((p: Person) => p.id)).not.toContain(created.id)
    expect((await server.request("GET", "/api/v2/desk/people/search?q=eted", { token: ownerToken })).json.total_count).toBe(0)
    // The token cache keeps a grant for a few seconds; the deleted person is not found either way.
    expect((await server.request("GET", "/api/v2/front/people/me", { token })).status).toBe(404)
    expect((await server.request("DELETE", `/api/v2/desk/people/${created.id}`, { token: ownerToken })).status).toBe(404)
    expect((await put(created.id, { person: { first_name: "Back" } })).status).toBe(404)
  })

  it("need a manager or an owner", async () => {
    const created = (await post({ person: { first_name: "Keep", last_name: "Me" } })).json.people[0]
    const standard = await server.request("DELETE", `/api/v2/desk/people/${created.id}`, { token: standardToken })
    expect(standard.status).toBe(403)
    expect(standard.json).toEqual({ errors: ["Only a manager or an owner of the business may do this"] })
    expect((await server.request("DELETE", `/api/v2/desk/people/${created.id}`, { token: limitedToken })).status).toBe(403)
    expect((await server.request("DELETE", `/api/v2/desk/people/${created.id}`, { token: clientToken })).status).toBe(403)
    expect((await server.request("DELETE", `/api/v2/desk/people/${created.id}`)).status).toBe(401)
    expect((await get(created.id)).json.people[0].deleted_at).toBeNull()
  })

  it("answer 422 with one message per failed condition", async () => {
    const self = await server.request("DELETE", `/api/v2/desk/people/${owner.personId}`, { token: ownerToken })
    expect(self.status).toBe(422)
    expect(self.json.errors).toEqual(["You cannot delete yourself", "A staff member cannot be deleted; remove their staff access first"])
    const staff = await server.request("DELETE", `/api/v2/desk/people/${limited.personId}`, { token: ownerToken })
    expect(staff.json.errors).toEqual(["A staff member cannot be deleted; remove their staff access first"])
    const parent = (await post({ person: { first_name: "Has", last_name: "Kids" } })).json.people[0]
    await createDependent(server.pool, business.id, parent.id)
    await createDependent(server.pool, business.id, parent.id)
    const withDependents = await server.request("DELETE", `/api/v2/desk/people/${parent.id}`, { token: ownerToken })
    expect(withDependents.status).toBe(422)
    expect(withDependents.json.errors).toEqual(["This person has dependents (2); remove them or give them another provider first"])
  })

  it("answer 404 for another business's person", async () => {
    const response = await server.request("DELETE", `/api/v2/desk/people/${foreignId}`, { token: ownerToken })
    expect(response.status).toBe(404)
    const { rows } = await server.pool.query(`select deleted_at from people where id = $1`, [foreignId])
    expect(rows[0].deleted_at).toBeNull()
  })
})

describe("PUT /api/v2/desk/people/:id/undelete", () => {
  /** Webhooks on, a receiver, and a subscription to each topic (events are stored only for subscribed topics). */
  const subscribedReceiver = async (topics: ReadonlyArray<string>) => {
    await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [business.id])
    const receiver = await startReceiver()
    for (const topic of topics) {
      const subscribed = await server.request("POST", "/api/v3/webhooks", {
        token: ownerToken,
        headers: { "content-type": "application/vnd.api+json" },
        body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url(`/${topic}`), topic } } })
      })
      expect(subscribed.status, subscribed.text).toBe(201)
    }
    return receiver
  }

  it("restore a deleted person and send person.undeleted; refuse a live one, a taken address, a standard staff member", async () => {
    const receiver = await subscribedReceiver(["person.undeleted"])
    const created = (await post({ person: { first_name: "Lazarus", last_name: "Back", email: "lazarus@example.test" } })).json.people[0]
    const undelete = (id: number, token = managerToken) => server.request("PUT", `/api/v2/desk/people/${id}/undelete`, { token })

    const live = await undelete(created.id)
    expect(live.status).toBe(422)
    expect(live.json).toEqual({ errors: [`Person ${created.id} is not deleted`] })
    expect((await server.request("DELETE", `/api/v2/desk/people/${created.id}`, { token: managerToken })).status).toBe(204)
    expect((await undelete(created.id, standardToken)).status).toBe(403)
    expect((await undelete(999999)).status).toBe(404)
    expect((await undelete(foreignId)).status).toBe(404)

    const restored = await undelete(created.id)
    expect(restored.status, restored.text).toBe(200)
    expect(restored.json.people[0]).toMatchObject({ id: created.id, email: "lazarus@example.test", deleted_at: null })
    expect((await get(created.id)).json.people[0].deleted_at).toBeNull()
    const events = await server.pool.query(
      "select (payload::jsonb -> 'people' -> 0 ->> 'id')::int as id from webhook_events where business_id = $1 and topic = 'person.undeleted'",
      [business.id]
    )
    expect(events.rows).toEqual([{ id: created.id }])

    // Deleted again, and meanwhile someone else took the address: the restore is refused, nothing changes.
    expect((await server.request("DELETE", `/api/v2/desk/people/${created.id}`, { token: managerToken })).status).toBe(204)
    expect((await post({ person: { first_name: "Other", last_name: "Lazarus", email: "lazarus@example.test" } })).status).toBe(201)
    const taken = await undelete(created.id)
    expect(taken.status).toBe(422)
    expect(taken.json.errors[0]).toContain("email")
    expect((await get(created.id)).json.people[0].deleted_at).not.toBeNull()
    await receiver.close()
  })

  it("delete and restore once each when the request arrives ten times at once: one success, one event", async () => {
    const receiver = await subscribedReceiver(["person.deleted", "person.undeleted"])
    const created = (await post({ person: { first_name: "Echo", last_name: "Twice" } })).json.people[0]
    const tenTimes = (method: string, path: string) =>
      Promise.all(Array.from({ length: 10 }, () => server.request(method, path, { token: managerToken })))
    const eventsOf = async (topic: string) =>
      (await server.pool.query(
        "select count(*)::int as n from webhook_events where business_id = $1 and topic = $2 and (payload::jsonb -> 'people' -> 0 ->> 'id')::int = $3",
        [business.id, topic, created.id]
      )).rows[0].n

    const deleted = await tenTimes("DELETE", `/api/v2/desk/people/${created.id}`)
    expect(deleted.map((answer) => answer.status).sort()).toEqual([204, ...Array(9).fill(404)])
    expect(await eventsOf("person.deleted")).toBe(1)
    const restored = await tenTimes("PUT", `/api/v2/desk/people/${created.id}/undelete`)
    expect(restored.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(422)])
    expect(await eventsOf("person.undeleted")).toBe(1)
    await receiver.close()
  })
})
