import { Effect, Option } from "effect"

/**
 * How a repo hands out its statements. A repo declares each statement once, as an effect/sql
 * `SqlSchema` function of one request object (`{ businessId, id }`), and returns it through one
 * of these instead of a positional wrapper per statement:
 *
 *   return {
 *     find: orUndefined(find),
 *     ofVisits: orDie(ofVisits)
 *   }
 *
 * A statement's own failures (an SQL error, a row that does not decode as its Result schema)
 * are bugs or outages, never refusals a caller could answer, so they become defects here,
 * once, rather than at every call.
 */
export const orDie = <I, A, E, R>(statement: (request: I) => Effect.Effect<A, E, R>) =>
(request: I): Effect.Effect<A, never, R> => Effect.orDie(statement(request))

/** A `findOneOption` statement whose missing row is `undefined`, which is what callers test. */
export const orUndefined = <I, A, E, R>(statement: (request: I) => Effect.Effect<Option.Option<A>, E, R>) =>
(request: I): Effect.Effect<A | undefined, never, R> => statement(request).pipe(Effect.map(Option.getOrUndefined), Effect.orDie)
