import { Metric } from "effect"
import { NO_CONTEXT } from "./context.ts"

/** Report exports by format and how they ended: `cancelled` when the client left and the query was interrupted. */
const EXPORT_OUTCOMES = ["completed", "cancelled"] as const
const reportExports = Object.fromEntries(
  (["csv", "parquet"] as const).map((format) => [
    format,
    Object.fromEntries(
      EXPORT_OUTCOMES.map((outcome) => [
        outcome,
        Metric.counter("studio_report_exports_total", {
          description: "Report exports (CSV, Parquet) by how they ended: cancelled when the client disconnected and the query was interrupted",
          attributes: { format, outcome },
          incremental: true
        })
      ])
    )
  ])
) as Record<"csv" | "parquet", Record<(typeof EXPORT_OUTCOMES)[number], Metric.Counter<number>>>
for (const byOutcome of Object.values(reportExports)) for (const counter of Object.values(byOutcome)) counter.valueUnsafe(NO_CONTEXT)

export const recordReportExport = (format: "csv" | "parquet", outcome: (typeof EXPORT_OUTCOMES)[number]): void =>
  reportExports[format][outcome].updateUnsafe(1, NO_CONTEXT)

const exportStatements = Metric.counter("studio_report_export_statements_total", {
  description: "Sorted statements CSV exports wrote their rows with: one per range of rows a large detail export is read in (REPORT_EXPORT_RANGE_ROWS), one for any other",
  incremental: true
})
exportStatements.valueUnsafe(NO_CONTEXT)

export const recordExportStatement = (): void => exportStatements.updateUnsafe(1, NO_CONTEXT)
