import type { DuckDBConnection, DuckDBDataChunk, DuckDBPreparedStatement, DuckDBResult, DuckDBValue } from "@duckdb/node-api"
import type { CompiledSql } from "./compile-filter.ts"
import type { ParamValue } from "./normalize-values.ts"
import type { StoreInstances } from "./store-files.ts"

/** A reader's connection to a store generation: prepared statements kept, values written in as literals, results streamed. */

/** Where a statement runs: on the generation's instance, or its one-thread instance (QUICK_READER_OPTIONS). */
export type Lane = "parallel" | "quick"

/** Statements a connection keeps prepared (the least recently used is dropped beyond it). */
export const STATEMENTS_KEPT = 64
/** Remembered answers a generation keeps (one per resource and scope asked); all are dropped beyond it. */
const REMEMBERED_KEPT = 10_000

export type Remembered = Map<string, Promise<string | null>>

/**
 * A connection to a store, with the statements it prepared, by lane and SQL text. With `kept` 0
 * every statement is prepared for one run and dropped (a one-off query, the benchmark's raw
 * side). One query at a time: the store hands a connection to one reader until it is put back.
 */
export class StoreConnection {
  readonly connection: DuckDBConnection
  /** The connection of the quick lane; without one, quick statements run on `connection`. */
  private readonly quick: DuckDBConnection | undefined
  private readonly kept: number
  private readonly prepared = new Map<string, DuckDBPreparedStatement>()
  private readonly remembered: Remembered
  /** The stream started last (one query at a time). */
  private streaming: RowStream | undefined
  /** `remembered`: answers shared by the connections to one generation (a store never changes). */
  constructor(connection: DuckDBConnection, kept: number = STATEMENTS_KEPT, remembered: Remembered = new Map(), quick?: DuckDBConnection) {
    this.connection = connection
    this.kept = kept
    this.remembered = remembered
    this.quick = quick
  }

  /** A connection to each of a generation's instances. */
  static async open(instances: StoreInstances, kept: number = STATEMENTS_KEPT, remembered: Remembered = new Map()): Promise<StoreConnection> {
    const connection = await instances.instance.connect()
    try {
      return new StoreConnection(connection, kept, remembered, await instances.quick.connect())
    } catch (error) {
      connection.closeSync()
      throw error
    }
  }

  /**
   * The first value of a statement's first row as text (null when none), asked once per
   * generation: a fact of the store itself, such as a business's newest-rows bound.
   */
  remember(statement: CompiledSql, lane: Lane = "parallel"): Promise<string | null> {
    const key = `${statement.sql}\u0000${JSON.stringify(statement.params)}`
    let answer = this.remembered.get(key)
    if (answer === undefined) {
      if (this.remembered.size >= REMEMBERED_KEPT) this.remembered.clear()
      answer = this.execute(statement, lane).then((rows) => {
        const value = rows[0]?.[0]
        return value === null || value === undefined ? null : String(value)
      })
      answer.catch(() => this.remembered.delete(key))
      this.remembered.set(key, answer)
    }
    return answer
  }

  /** Runs a compiled statement, its values written in as literals (`withLiterals`), and returns its rows. */
  async execute(statement: CompiledSql, lane: Lane = "parallel"): Promise<ReadonlyArray<ReadonlyArray<DuckDBValue>>> {
    const inlined = withLiterals(statement)
    const sql = inlined ?? statement.sql
    const on = lane === "quick" && this.quick ? this.quick : this.connection
    const key = on === this.connection ? sql : `quick\u0000${sql}`
    // With the query's clock written in (`$now`, to the millisecond) the text never repeats:
    // kept, it would only push out statements that do.
    const repeats = inlined === undefined || !("now" in statement.params)
    const cached = this.prepared.get(key)
    // Taken out while it runs, put back last: the map's order is the order of use.
    this.prepared.delete(key)
    const prepared = cached ?? (await on.prepare(sql))
    let keep = false
    try {
      if (inlined === undefined) prepared.bind({ ...statement.params })
      // The result is materialized: its chunks are read without a round trip each.
      const result = await prepared.run()
      const rows: Array<Array<DuckDBValue>> = []
      for (let i = 0; i < result.chunkCount; i++) result.getChunk(i).appendToRows(rows)
      keep = this.kept > 0 && repeats
      return rows
    } finally {
      if (keep) this.keep(key, prepared)
      else prepared.destroySync()
    }
  }

  /**
   * Starts a statement whose rows are read chunk by chunk (an export: memory stays that of a
   * chunk whatever the result's size). Nothing else may run on the connection until the
   * stream ended or was cancelled (RowStream.cancel).
   */
  stream(statement: CompiledSql): RowStream {
    const inlined = withLiterals(statement)
    const connection = this.connection
    this.streaming = new RowStream(connection, () =>
      inlined === undefined ? connection.stream(statement.sql, { ...statement.params }) : connection.stream(inlined))
    return this.streaming
  }

  /**
   * Makes the connection idle before it is reused: a stream still running is cancelled.
   * False when the connection cannot be trusted any more (it is then closed, not kept).
   */
  async settle(): Promise<boolean> {
    const streaming = this.streaming
    this.streaming = undefined
    if (streaming === undefined) return true
    try {
      await streaming.cancel()
      return true
    } catch {
      return false
    }
  }

  private keep(key: string, prepared: DuckDBPreparedStatement) {
    this.prepared.set(key, prepared)
    if (this.prepared.size <= this.kept) return
    const [oldest, statement] = this.prepared.entries().next().value!
    this.prepared.delete(oldest)
    statement.destroySync()
  }

  /** How many statements this connection keeps prepared now. */
  get keptStatements(): number {
    return this.prepared.size
  }

  close() {
    for (const statement of this.prepared.values()) statement.destroySync()
    this.prepared.clear()
    this.connection.closeSync()
    this.quick?.closeSync()
  }
}

/**
 * A compiled statement's text with its parameters written in as literals, or undefined when a
 * value cannot be (a NUL character): the statement then runs with bound parameters.
 *
 * DuckDB plans a statement that has parameters again at every run (since 1.5 it prefers a new
 * plan with the values to a cached one), about 0.8 ms of a 2 ms page; the same text with
 * literals is planned once and kept. Each value becomes a quoted literal cast to the type
 * DuckDB binds it as (node-api's typeForValue), so the compiled CASTs see what they saw: in
 * DuckDB's standard strings a doubled quote is the only escape, so no value can leave its
 * quotes. Only `$name` tokens the parameters name are replaced; the compiler writes no other.
 */
export const withLiterals = (statement: CompiledSql): string | undefined => {
  const literals = new Map<string, string>()
  for (const [name, value] of Object.entries(statement.params)) {
    const literal = literalOf(value)
    if (literal === undefined) return undefined
    literals.set(name, literal)
  }
  return statement.sql.replace(PARAMETER, (token, name: string) => literals.get(name) ?? token)
}

const PARAMETER = /\$([A-Za-z_][A-Za-z0-9_]*)/g

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`

const literalOf = (value: ParamValue): string | undefined => {
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false"
    case "number":
      if (!Number.isFinite(value)) return undefined
      if (!Number.isInteger(value)) return `CAST(${quoted(String(value))} AS DOUBLE)`
      return `CAST(${quoted(String(value))} AS ${value >= -2_147_483_648 && value <= 2_147_483_647 ? "INTEGER" : "BIGINT"})`
    case "string":
      return value.includes("\u0000") ? undefined : quoted(value)
  }
}

/**
 * A streaming result. `cancel` interrupts DuckDB's work on it (`interrupt()`: a running sort or
 * scan stops within a chunk) and waits for the chunk being read to settle, so the connection is
 * idle, and usable again, once it returns.
 */
export class RowStream {
  private result: DuckDBResult | undefined
  private pending: Promise<unknown> | undefined
  private done = false
  private readonly connection: DuckDBConnection
  private readonly start: () => Promise<DuckDBResult>
  /** `start`: runs the statement (a sorted result is sorted before its first chunk: cancellable too). */
  constructor(connection: DuckDBConnection, start: () => Promise<DuckDBResult>) {
    this.connection = connection
    this.start = start
  }

  /** The next chunk's rows, or undefined once the result is read (or the stream cancelled). */
  async next(): Promise<Array<Array<DuckDBValue>> | undefined> {
    return (await this.nextChunk())?.getRows()
  }

  /** The next chunk's first column as text (a VARCHAR column: no value objects on the way). */
  async nextTexts(): Promise<string | undefined> {
    const chunk = await this.nextChunk()
    if (chunk === undefined) return undefined
    const vector = chunk.getColumnVector(0)
    let text = ""
    for (let i = 0; i < chunk.rowCount; i++) text += (vector.getItem(i) as string | null) ?? ""
    return text
  }

  private async nextChunk(): Promise<DuckDBDataChunk | undefined> {
    if (this.done) return undefined
    const fetching = (async () => (this.result ??= await this.start()).fetchChunk())()
    this.pending = fetching
    try {
      const chunk = await fetching
      if (this.done) return undefined
      if (!chunk || chunk.rowCount === 0) {
        this.done = true
        return undefined
      }
      return chunk
    } finally {
      this.pending = undefined
    }
  }

  get finished(): boolean {
    return this.done
  }

  /** Stops the query if it still runs; true when it did. */
  async cancel(): Promise<boolean> {
    if (this.done) return false
    this.done = true
    this.connection.interrupt()
    await this.pending?.catch(() => {})
    return true
  }
}
