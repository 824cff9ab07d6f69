import pg from "pg"
import { createBusiness, createLocation, createPerson, createToken } from "../../test/support/factories.ts"

/** The benchmark's tenant: business `demo`, 10 locations, an owner with a token limited to it. */
export const seedBench = async (databaseUrl: string) => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  pool.on("error", () => {})
  try {
    const business = await createBusiness(pool, { subdomain: "demo", name: "Demo Studio" })
    for (let i = 0; i < 10; i++) {
      await createLocation(pool, business.id, {
        name: `Location ${i + 1}`,
        position: i,
        time_zone: i % 2 === 0 ? "America/Los_Angeles" : "Europe/Berlin",
        show_in_client_mode: i !== 9
      })
    }
    const owner = await createPerson(pool, business.id, { email: "owner@demo.test", role: "owner" })
    const token = await createToken(pool, owner.accountId, business.id)
    return { businessId: business.id, subdomain: business.subdomain, token }
  } finally {
    await pool.end()
  }
}

/**
 * The booking benchmarks' schedule in `businessId`: a group class ("Bench Yoga") whose
 * occurrences start hourly from tomorrow on, each with the capacity given, and people to book
 * (one visit per person and occurrence, so each booking needs its own pair).
 */
export const benchSchedule = async (pool: pg.Pool, businessId: number) => {
  const ids = (result: pg.QueryResult<{ id: string }>) => result.rows.map((row) => Number(row.id))
  const [serviceId] = ids(
    await pool.query<{ id: string }>(
      `insert into services (business_id, type, name, duration_in_minutes, maximum_clients) values ($1, 'GroupClass', 'Bench Yoga', 60, 1000000) returning id`,
      [businessId]
    )
  )
  return {
    occurrences: async (count: number, capacity: number) =>
      ids(
        await pool.query<{ id: string }>(
          `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone, state, capacity)
           select $1, $2, 'Bench Yoga', now() + interval '1 day' + g * interval '1 hour', now() + interval '1 day' + g * interval '1 hour' + interval '1 hour',
                  'America/Los_Angeles', 'active', $3
           from generate_series(1, $4) g returning id`,
          [businessId, serviceId, capacity, count]
        )
      ),
    people: async (count: number) =>
      ids(
        await pool.query<{ id: string }>(
          `insert into people (business_id, first_name, last_name) select $1, 'Bench', 'Person ' || g from generate_series(1, $2) g returning id`,
          [businessId, count]
        )
      )
  }
}
