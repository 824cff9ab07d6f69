import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as path from "node:path"
import { readAppConfig } from "../../platform/config.ts"
import { removeStoppedEmbeddedCluster } from "../../platform/embedded-postgres.ts"
import { EmbeddedPostgresError } from "../../platform/embedded-postgres/placement.ts"
import { printJson, userError } from "./support.ts"

/**
 * `embedded remove --yes`: deletes the embedded PostgreSQL cluster of DATA_DIR (all its data),
 * wherever it was placed: `{DATA_DIR}/postgres`, or, as root from a checkout user postgres could
 * not reach, the folder under /var/lib/studio-service it links to. Never starts the cluster
 * (no layer graph here), and refuses while one runs on it.
 */
const embeddedRemove = Command.make(
  "remove",
  {
    yes: Flag.Boolean("yes").pipe(Flag.withDefault(false), Flag.withDescription("Confirm: the cluster's data is deleted"))
  },
  (flags) =>
    Effect.gen(function* () {
      const config = yield* Effect.orDie(readAppConfig)
      const dataDir = path.join(config.dataDir, "postgres")
      if (!flags.yes) {
        return yield* Effect.fail(userError(`this deletes the embedded PostgreSQL of ${dataDir} and all its data: add --yes to go on`))
      }
      const removed = yield* Effect.try({
        try: () => removeStoppedEmbeddedCluster(dataDir),
        catch: (error) => userError(error instanceof EmbeddedPostgresError ? error.message : `could not remove ${dataDir}: ${String(error)}`)
      })
      yield* printJson({ data_dir: dataDir, removed })
    })
).pipe(Command.withDescription("Delete the embedded PostgreSQL cluster of DATA_DIR (also one placed in /var/lib/studio-service); --yes to confirm"))

export const embedded = Command.make("embedded").pipe(
  Command.withDescription("The embedded PostgreSQL of DATA_DIR"),
  Command.withSubcommands([embeddedRemove])
)
