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
