/** What a sync answers (sync.ts), and what each kind of build hands back to it. */
export interface SyncSummary {
  /** `unchanged`: an incremental refresh that found nothing to apply. */
  readonly outcome: "full" | "incremental" | "unchanged"
  readonly generation: number
  /** Rows written per table (the changed rows for an incremental refresh). */
  readonly rows: Readonly<Record<string, number>>
  /**
   * A full rebuild only: milliseconds spent copying the base tables into DuckDB (`mirrors`) and
   * building each store table there.
   */
  readonly build_ms?: Readonly<Record<string, number>>
  readonly synced_at: string
  readonly duration_ms: number
}

/** A build's answer; sync.ts adds the duration. */
export type SyncResult = Omit<SyncSummary, "duration_ms">
