import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { seedScale } from "../../tools/demo/scale.ts"
import { lockDemo } from "../../tools/demo/lock.ts"
import { seedDemo } from "../../tools/demo/seed.ts"
import { AppConfig } from "../../platform/config.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { printJson, userError, withServices } from "./support.ts"

const seedDemoCommand = Command.make("demo", {}, () =>
  withServices(
    Effect.gen(function* () {
      // The demo's password and application secret are published: never in production.
      if ((yield* AppConfig).production) {
        return yield* Effect.fail(userError("the demo business is for development: NODE_ENV=production never seeds it"))
      }
      yield* migrateDatabase
      const demo = yield* seedDemo
      yield* printJson({
        subdomain: demo.subdomain,
        client_id: demo.clientId,
        owner_token: demo.ownerToken,
        client_token: demo.clientToken,
        password: demo.password
      })
    })
  )).pipe(
  Command.withDescription(
    "Create the demo business (subdomain demo), its OAuth app demo-app and tokens for owner@demo.test and client@demo.test; " +
      "does nothing but print the tokens when it exists"
  )
)

const lockDemoCommand = Command.make("lock-demo", {}, () =>
  withServices(
    Effect.gen(function* () {
      yield* migrateDatabase
      yield* printJson(yield* lockDemo)
    })
  )).pipe(
  Command.withDescription(
    "Take the demo's published secrets away (demo accounts still on the published password lose it, " +
      "the demo business's and demo-app's tokens are revoked, demo-app gets an unknown secret); data stays"
  )
)

const seedScaleCommand = Command.make(
  "scale",
  {
    enrollments: Flag.Int("enrollments").pipe(Flag.withDescription("About how many enrollments (visits and waitlist entries) to create")),
    businesses: Flag.optional(Flag.Int("businesses")).pipe(
      Flag.withDescription("How many businesses (default: one per 250,000 enrollments, 1 to 40)")
    ),
    years: Flag.Int("years").pipe(Flag.withDefault(3), Flag.withDescription("Years of history, up to four weeks from now (default: 3)"))
  },
  ({ enrollments, businesses, years }) =>
    withServices(
      Effect.gen(function* () {
        if (enrollments < 1 || enrollments > 100_000_000) return yield* Effect.fail(userError("--enrollments must be between 1 and 100000000"))
        if (years < 1 || years > 20) return yield* Effect.fail(userError("--years must be between 1 and 20"))
        const count = Option.getOrUndefined(businesses)
        if (count !== undefined && (count < 1 || count > 1000)) return yield* Effect.fail(userError("--businesses must be between 1 and 1000"))
        yield* migrateDatabase
        yield* printJson(yield* seedScale({ enrollments, businesses: count, years }))
      })
    )
).pipe(
  Command.withDescription(
    "Create businesses scale-1, scale-2, ... with years of classes, clients and enrollments (skewed popularity, seasons, churn), " +
      "for the report benchmark; each run adds new businesses"
  )
)

export const seed = Command.make("seed").pipe(
  Command.withDescription("Load sample data"),
  Command.withSubcommands([seedDemoCommand, lockDemoCommand, seedScaleCommand])
)
