import { Schema } from "effect"
import { defineJob } from "../src/platform/jobs.ts"

/**
 * Builds the report store: `full` rebuilds it into a new generation, `incremental` (the
 * default) applies the rows changed since the last sync. Run by workers/tasks/report_sync.ts.
 */
export const ReportSyncJob = defineJob(
  "report_sync",
  Schema.Struct({ mode: Schema.optional(Schema.Literals(["full", "incremental"])) })
)
