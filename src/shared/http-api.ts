import { type NonEmptyReadonlyArray } from "effect/Array"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

/**
 * The service's HttpApi over some of its groups: all of them for the whole contract
 * (src/app/api.ts), or one domain's own groups for its handlers:
 *
 *   HttpApiBuilder.group(apiOf(LocationsDeskApi), "locationsDesk", ...)
 *
 * so that a domain never imports the whole contract, which imports every domain. The two
 * agree on what handlers read from an HttpApi: its id (the groups' layers are looked up by
 * id and group name) and its annotations (how requests and bodies are decoded and encoded).
 */
export const apiOf = <const Groups extends NonEmptyReadonlyArray<HttpApiGroup.Constraint>>(...groups: Groups) =>
  HttpApi.make("studio")
    .add(...groups)
    // Report every offending field of a request at once, not only the first.
    .annotate(HttpApi.ParseOptions, { errors: "all" })
    // Not for the bodies we answer: "all" only matters when encoding fails, which is a 500 either
    // way, and it takes Schema off its fast path for structs on every response (≈ 20 µs each).
    .annotate(HttpApi.SuccessParseOptions, {})
    .annotate(HttpApi.ErrorParseOptions, {})
