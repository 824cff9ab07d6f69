import { describe, expect, it } from "vitest"
import { HOLDING_STATES, VISIT_STATES } from "../../src/enrollment/visits/model.ts"
import { business, desk, newPerson, occurrence, server, setUpVisits } from "./visits-setup.ts"

/**
 * The places an occurrence's visits take, counted by the visits' own triggers
 * (event_occurrence_places, sql/migrations/0039): after every kind of write the count equals a
 * count of the holding visits, and the capacity rule reads it.
 */
setUpVisits()

const counted = async (occurrenceId: number) =>
  (await server.pool.query(
    `select taken from event_occurrence_places where business_id = $1 and event_occurrence_id = $2`,
    [business.id, occurrenceId]
  )).rows[0]?.taken ?? 0

const holding = async (occurrenceId: number) =>
  (await server.pool.query(
    `select count(*)::int as n from visits where business_id = $1 and event_occurrence_id = $2 and state = any($3)`,
    [business.id, occurrenceId, HOLDING_STATES]
  )).rows[0].n

const expectCount = async (occurrenceId: number, expected: number) => {
  expect(await holding(occurrenceId)).toBe(expected)
  expect(await counted(occurrenceId)).toBe(expected)
}

describe("places taken, as the visits' triggers count them", () => {
  it("holds the same states as HOLDING_STATES (the rule is written once per language)", async () => {
    const { rows } = await server.pool.query(`select s as state, visit_holds_place(s) as holds from unnest($1::text[]) s`, [VISIT_STATES])
    expect(rows.filter((row) => row.holds).map((row) => row.state)).toEqual([...HOLDING_STATES])
  })

  it("follows visits posted, moved between states and deleted over HTTP", async () => {
    const o = await occurrence({ capacity: 5 })
    await expectCount(o, 0)
    const posted = async (state: string) => {
      const response = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state })
      expect(response.status).toBe(201)
      return response.json.visits[0].id as number
    }
    const reserved = await posted("reserved")
    const registered = await posted("registered")
    await posted("late_canceled")
    await expectCount(o, 2)

    expect((await desk.put(registered, { state_event: "noshow" })).status).toBe(200)
    await expectCount(o, 1)
    expect((await desk.put(registered, { state_event: "reset" })).status).toBe(200)
    await expectCount(o, 2)
    expect((await desk.put(registered, { state_event: "complete" })).status).toBe(200)
    await expectCount(o, 2)
    expect((await desk.delete(reserved)).status).toBe(204)
    await expectCount(o, 1)
  })

  it("counts many visits written by one statement, in several occurrences", async () => {
    const [a, b] = [await occurrence({ capacity: null }), await occurrence({ capacity: null })]
    const people = [await newPerson(), await newPerson(), await newPerson()]
    await server.pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, state)
       select $1, o, p, s from unnest($2::bigint[]) o, unnest($3::bigint[], $4::text[]) as x(p, s)`,
      [business.id, [a, b], people, ["reserved", "registered", "noshowed"]]
    )
    await expectCount(a, 2)
    await expectCount(b, 2)
    await server.pool.query(`update visits set state = 'late_canceled' where business_id = $1 and event_occurrence_id = any($2) and person_id = $3`, [
      business.id,
      [a, b],
      people[0]
    ])
    await expectCount(a, 1)
    await server.pool.query(`delete from visits where business_id = $1 and event_occurrence_id = any($2) and person_id = any($3)`, [
      business.id,
      [a, b],
      people.slice(1)
    ])
    await expectCount(a, 0)
    await expectCount(b, 0)
  })

  it("an update that does not cross between holding and freeing leaves the count alone", async () => {
    const o = await occurrence({ capacity: 3 })
    const response = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "reserved" })
    const id = response.json.visits[0].id as number
    await server.pool.query(`update event_occurrence_places set taken = 7 where business_id = $1 and event_occurrence_id = $2`, [business.id, o])
    await server.pool.query(`update visits set state = 'registered', updated_at = now() where business_id = $1 and id = $2`, [business.id, id])
    expect(await counted(o)).toBe(7)
    await server.pool.query(`update event_occurrence_places set taken = 1 where business_id = $1 and event_occurrence_id = $2`, [business.id, o])
  })

  it("the capacity rule reads the count: full at capacity, a place again once a visit frees it", async () => {
    const o = await occurrence({ capacity: 2 })
    const first = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "registered" })
    await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "reserved" })
    const refused = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "registered", restrictions: ["full"] })
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual(["This event is full"])

    expect((await desk.put(first.json.visits[0].id, { state_event: "late_cancel" })).status).toBe(200)
    const admitted = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "registered", restrictions: ["full"] })
    expect(admitted.status).toBe(201)
    await expectCount(o, 2)
  })

  it("a count that says full refuses even when the visits would fit (the rule reads the count, not the visits)", async () => {
    const o = await occurrence({ capacity: 1 })
    await server.pool.query(
      `insert into event_occurrence_places (business_id, event_occurrence_id, taken) values ($1, $2, 1)
       on conflict (business_id, event_occurrence_id) do update set taken = 1`,
      [business.id, o]
    )
    const refused = await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "registered", restrictions: ["full"] })
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual(["This event is full"])
    await server.pool.query(`update event_occurrence_places set taken = 0 where business_id = $1 and event_occurrence_id = $2`, [business.id, o])
    expect((await desk.post({ person_id: await newPerson(), event_occurrence_id: o, state: "registered", restrictions: ["full"] })).status).toBe(201)
  })

  it("every occurrence's count equals its holding visits after all of the above", async () => {
    const { rows } = await server.pool.query(
      `select o.id, coalesce(p.taken, 0) as counted,
              (select count(*)::int from visits v where v.business_id = o.business_id and v.event_occurrence_id = o.id
                 and visit_holds_place(v.state)) as holding
       from event_occurrences o
       left join event_occurrence_places p on p.business_id = o.business_id and p.event_occurrence_id = o.id`
    )
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) expect(row.counted, `occurrence ${row.id}`).toBe(row.holding)
  })
})
