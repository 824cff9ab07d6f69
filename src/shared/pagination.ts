import { Effect, Schema } from "effect"
import { positiveIntParam } from "./schemas.ts"
import { RequestContext } from "./request-context.ts"

/**
 * The one pagination of the Core API: `page` (1-based) and `per_page` in, `total_count` and,
 * only when they exist, absolute `next`/`prev` URLs out. Clients loop until `next` is absent.
 * A `per_page` above the maximum is clamped to it (docs/decisions.md).
 */
export const PageQuery = {
  page: Schema.optional(positiveIntParam("Page number, starting at 1")),
  per_page: Schema.optional(positiveIntParam("Records per page, at most 100"))
}

export const PageFields = {
  total_count: Schema.Int,
  next: Schema.optionalKey(Schema.String.annotate({ description: "Absolute URL of the next page; absent on the last" })),
  prev: Schema.optionalKey(Schema.String.annotate({ description: "Absolute URL of the previous page; absent on the first" }))
}

export const MAX_PER_PAGE = 100

export interface Page {
  readonly page: number
  readonly perPage: number
  readonly limit: number
  readonly offset: number
}

export const pageOf = (
  query: { readonly page?: number | undefined; readonly per_page?: number | undefined },
  defaultPerPage = 20
): Page => {
  const page = query.page ?? 1
  const perPage = Math.min(query.per_page ?? defaultPerPage, MAX_PER_PAGE)
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage }
}

export interface PageLinks {
  readonly total_count: number
  readonly next?: string
  readonly prev?: string
}

/**
 * The request's own absolute URL, to write links from, without `access_token`: a bearer secret
 * given in the query string is never copied into a URL the service writes (clients log, cache
 * and share those).
 */
export const linkBase = (context: { readonly originalUrl: string; readonly origin: string }): URL => {
  const url = new URL(context.originalUrl, context.origin)
  url.searchParams.delete("access_token")
  return url
}

/** `total_count` and the absolute `next`/`prev` URLs: the request's own URL (linkBase) with another `page`. */
export const pageLinks = (page: Page, totalCount: number): Effect.Effect<PageLinks> =>
  RequestContext.useSync((context) => {
    // Most lists fit one page: the URL is parsed only when there is a link to write.
    const link = (n: number) => {
      const url = linkBase(context)
      url.searchParams.set("page", String(n))
      return url.toString()
    }
    const lastPage = Math.max(1, Math.ceil(totalCount / page.perPage))
    return {
      total_count: totalCount,
      ...(page.page < lastPage ? { next: link(page.page + 1) } : {}),
      ...(page.page > 1 ? { prev: link(Math.min(page.page - 1, lastPage)) } : {})
    }
  })


/**
 * The total of a list read with `count(*) over () as total_count`: the first row carries it.
 * Past the last page there is no row to carry it, and only then `count` runs.
 */
export const totalCount = <E, R>(
  rows: ReadonlyArray<{ readonly total_count: number }>,
  page: Page,
  count: Effect.Effect<ReadonlyArray<{ readonly n: number }>, E, R>
): Effect.Effect<number, E, R> =>
  rows.length > 0
    ? Effect.succeed(rows[0]!.total_count)
    : page.offset === 0
      ? Effect.succeed(0)
      : Effect.map(count, (result) => Number(result[0]?.n ?? 0))
