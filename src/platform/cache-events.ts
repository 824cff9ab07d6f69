import { Clock, Context, Effect, Layer } from "effect"
import pg from "pg"
import { DatabaseUrl } from "./database.ts"

/**
 * Changes to what API processes cache, heard from PostgreSQL (channel `studio_cache`,
 * notified by the triggers of migration 0030 in the writing transaction, so at its commit).
 *
 * One listening connection per process. A cache registers what to drop for a `<kind>:<key>`
 * payload and what to drop when notifications may have been missed: when the connection is lost
 * and made again, every cache is emptied (the version check of a listener that was away), and
 * until it is back caches are emptied on every reconnect attempt, so none keeps an answer longer
 * than its own short TTL.
 */
export const CACHE_CHANNEL = "studio_cache"

export interface CacheSubscriber {
  readonly kind: string
  readonly changed: (key: string) => void
  readonly dropAll: () => void
}

export interface CacheEventsShape {
  readonly subscribe: (subscriber: CacheSubscriber) => void
}

export class CacheEvents extends Context.Service<CacheEvents, CacheEventsShape>()("studio/CacheEvents") {}

/**
 * Answers read on every request and rarely changed: each kept `ttlMs` at most, and all of them
 * dropped when any row of `kind` changes (in any process). A load that began before a drop is
 * answered but not kept. Bounded: past `maxEntries` keys it starts again empty.
 * `get` adds no generator nor span on a hit (every request passes here).
 */
export const droppedOnChange = <K, V>(events: CacheEventsShape, kind: string, ttlMs: number, maxEntries = 10_000) => {
  const entries = new Map<K, { readonly value: V; readonly expires: number }>()
  let generation = 0
  const forget = () => {
    generation++
    entries.clear()
  }
  events.subscribe({ kind, changed: forget, dropAll: forget })
  return {
    /** Drops every entry now: this process's own write, before its notice comes back. */
    drop: forget,
    get: <E, R>(key: K, load: () => Effect.Effect<V, E, R>): Effect.Effect<V, E, R> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = entries.get(key)
        if (hit !== undefined && hit.expires > now) return Effect.succeed(hit.value)
        const loadedIn = generation
        return Effect.map(load(), (value) => {
          if (loadedIn !== generation) return value
          if (entries.size > maxEntries) entries.clear()
          entries.set(key, { value, expires: now + ttlMs })
          return value
        })
      })
  }
}

/** Listens on the database; stops with the layer. */
export const CacheEventsLive = Layer.effect(CacheEvents)(
  Effect.gen(function* () {
    const url = yield* DatabaseUrl
    const subscribers: Array<CacheSubscriber> = []
    const dropAll = () => {
      for (const subscriber of subscribers) subscriber.dropAll()
    }
    let client: pg.Client | undefined
    let stopped = false
    let retryTimer: ReturnType<typeof setTimeout> | undefined
    let backoffMs = 100

    const onNotification = (message: pg.Notification) => {
      const payload = message.payload ?? ""
      const colon = payload.indexOf(":")
      const kind = colon < 0 ? payload : payload.slice(0, colon)
      const key = colon < 0 ? "" : payload.slice(colon + 1)
      for (const subscriber of subscribers) if (subscriber.kind === kind) subscriber.changed(key)
    }

    const connect = async (): Promise<void> => {
      const next = new pg.Client({ connectionString: url, application_name: "studio-service cache listener" })
      let gone = false
      const lost = () => {
        if (gone) return
        gone = true
        next.removeAllListeners("notification")
        void next.end().catch(() => {})
        if (client === next) client = undefined
        schedule()
      }
      next.on("error", lost)
      next.on("end", () => {
        if (!stopped && client === next) lost()
      })
      next.on("notification", onNotification)
      try {
        await next.connect()
        await next.query(`listen ${CACHE_CHANNEL}`)
      } catch {
        lost()
        return
      }
      if (stopped) return void (await next.end().catch(() => {}))
      client = next
      backoffMs = 100
      // Whatever changed while nobody listened: forget it all.
      dropAll()
    }

    const schedule = () => {
      if (stopped || retryTimer !== undefined) return
      dropAll()
      retryTimer = setTimeout(() => {
        retryTimer = undefined
        void connect()
      }, backoffMs)
      backoffMs = Math.min(5_000, backoffMs * 2)
    }

    yield* Effect.acquireRelease(
      Effect.promise(() => connect()),
      () =>
        Effect.promise(async () => {
          stopped = true
          if (retryTimer !== undefined) clearTimeout(retryTimer)
          await client?.end().catch(() => {})
        })
    )
    return CacheEvents.of({ subscribe: (subscriber) => void subscribers.push(subscriber) })
  })
)
