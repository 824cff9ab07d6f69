import { Effect, Layer, Option, Schema } from "effect"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { BusinessDirectory, BusinessDirectoryLive, CurrentBusiness } from "../../src/access/tenant.ts"
import { CacheEventsLive } from "../../src/platform/cache-events.ts"
import { LocationDesk } from "../../src/catalog/locations/model.ts"
import { LocationsRepo } from "../../src/catalog/locations/repo.ts"
import { listLocations } from "../../src/catalog/locations/service.ts"
import { PageFields, PageQuery } from "../../src/shared/pagination.ts"
import { RequestContext } from "../../src/shared/request-context.ts"
import { floorServer, runFloor } from "./floor-server.ts"

/**
 * The stack's floor for `GET /api/v2/desk/locations`: the service's own contract (query and
 * response schemas), handler, repo and SQL client (`@effect/sql-pg`, the same pool) on the
 * smallest Effect HttpApi server, without the service's request pipeline and access
 * middleware: no request id, log, rate limit, host tenancy, locale or token check. The
 * business (SUBDOMAIN, read once at start) and the request's context are constants.
 * Every request still runs the real query. The service does all of this and more, so its
 * throughput cannot exceed this one's: the gap between the two is the middleware's price,
 * the gap between this one and the bare baseline is the stack's.
 * Prints `ready <port>` once it listens.
 */
const databaseUrl = process.env.DATABASE_URL
if (!databaseUrl) throw new Error("DATABASE_URL is required")
const subdomain = process.env.SUBDOMAIN ?? "demo"

const FloorApi = HttpApi.make("floor").add(
  HttpApiGroup.make("locations").add(
    HttpApiEndpoint.get("list", "/api/v2/desk/locations", {
      query: PageQuery,
      success: Schema.Struct({ locations: Schema.Array(LocationDesk), ...PageFields })
    })
  )
)

const LocationsLive = HttpApiBuilder.group(FloorApi, "locations", (handlers) =>
  Effect.gen(function* () {
    const business = Option.getOrThrow(yield* (yield* BusinessDirectory).bySubdomain(subdomain))
    const context = {
      requestId: "floor",
      locale: "en" as const,
      business: Option.some(business),
      origin: `http://${subdomain}.localhost`,
      originalUrl: "/api/v2/desk/locations",
      accessToken: Option.none(),
      clientId: Option.none(),
      clientAddress: "127.0.0.1"
    }
    return handlers.handle("list", ({ query }) =>
      listLocations(query, { clientVisibleOnly: false }).pipe(
        Effect.provideService(CurrentBusiness, business),
        Effect.provideService(RequestContext, context)
      ))
  }))

runFloor(floorServer(FloorApi, LocationsLive, Layer.mergeAll(LocationsRepo.layer, BusinessDirectoryLive.pipe(Layer.provide(CacheEventsLive)))))
