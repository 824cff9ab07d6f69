import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import * as fs from "node:fs/promises"
import { importBusiness } from "../../tools/import/service.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { importProblems, printJson, userError, withServices } from "./support.ts"

export const importCommand = Command.make(
  "import",
  { file: Argument.String("file").pipe(Argument.withDescription("The import document, a JSON file")) },
  ({ file }) =>
    withServices(
      Effect.gen(function* () {
        const text = yield* Effect.tryPromise({
          try: () => fs.readFile(file, "utf8"),
          catch: (cause) =>
            userError(
              `cannot read ${file}: ${cause instanceof Error && "code" in cause && cause.code === "ENOENT" ? "no such file" : String(cause)}`
            )
        })
        const input = yield* Effect.try({
          try: (): unknown => JSON.parse(text),
          catch: (cause) => userError(`${file} is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`)
        })
        yield* migrateDatabase
        const summary = yield* importBusiness(input).pipe(
          Effect.mapError((error) => importProblems(error, `${file} is not a valid import document`))
        )
        yield* printJson(summary)
      })
    )
).pipe(
  Command.withDescription("Import a business from a JSON document, all or nothing (prints a summary as JSON)")
)
