import { createServer } from "node:http"
import pg from "pg"

/**
 * The baseline: a bare `node:http` server answering what `GET /api/v2/desk/locations` answers
 * for one business, from the same database through a `pg` Pool of the service's size (20),
 * with the same SQL (one page of 100 by position and id, with the total) and the same JSON.
 * No auth, tenancy, rate limits, routing, schemas or logging: the floor for the service.
 * The business is fixed (BUSINESS_ID) and the locale is English, as the service resolves it
 * for the benchmark's requests.
 * Prints `ready <port>` once it listens.
 */
const databaseUrl = process.env.DATABASE_URL
const businessId = Number(process.env.BUSINESS_ID)
if (!databaseUrl || !Number.isInteger(businessId)) throw new Error("DATABASE_URL and BUSINESS_ID are required")

// Idle connections stay open, as the service's pool keeps them, so a round never pays for
// reconnecting (and re-preparing) after the other target's round.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, idleTimeoutMillis: 0 })
pool.on("error", () => {})
// bigint columns (ids, counts) as numbers, as the service reads them
pg.types.setTypeParser(pg.types.builtins.INT8, Number)

/**
 * The time zone's friendly name, as the service shows it ("Pacific Time"): the same Intl call,
 * remembered per zone, since for a fixed locale and zone it never changes.
 */
const friendlyNames = new Map<string, string>()
const friendlyTimeZone = (timeZone: string): string => {
  let name = friendlyNames.get(timeZone)
  if (name === undefined) {
    name =
      new Intl.DateTimeFormat("en", { timeZone, timeZoneName: "longGeneric" })
        .formatToParts(new Date(0))
        .find((part) => part.type === "timeZoneName")?.value ?? timeZone
    friendlyNames.set(timeZone, name)
  }
  return name
}

// A named statement: parsed and planned once per connection, as the service's driver does
// with its statements, so PostgreSQL does the same work for both.
const LIST = `
  select id, name, slug, address, latitude, longitude, phone, description, time_zone, show_in_client_mode,
         count(*) over () as total_count
  from locations
  where business_id = $1
  order by position, id
  limit 100 offset 0`

const server = createServer((request, response) => {
  if (request.method !== "GET" || !request.url?.startsWith("/api/v2/desk/locations")) {
    response.writeHead(404).end()
    return
  }
  pool.query({ name: "locations", text: LIST, values: [businessId] }).then(
    ({ rows }) => {
      const body = JSON.stringify({
        locations: rows.map((row) => ({
          id: row.id,
          name: row.name,
          address: row.address,
          latitude: row.latitude,
          longitude: row.longitude,
          phone: row.phone,
          description: row.description,
          timezone_friendly: friendlyTimeZone(row.time_zone),
          timezone: row.time_zone,
          show_in_client_mode: row.show_in_client_mode,
          slug: row.slug
        })),
        total_count: rows.length > 0 ? rows[0].total_count : 0
      })
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body)
    },
    (error: Error) => {
      response.writeHead(500, { "content-type": "text/plain" }).end(error.message)
    }
  )
})

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`ready ${typeof address === "object" && address ? address.port : 0}\n`)
})

const stop = () => {
  server.close()
  server.closeAllConnections()
  void pool.end().finally(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
