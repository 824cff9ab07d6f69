import { OpenApi } from "effect/http-api"
import { type Refusal, refusalsList } from "./refusals.ts"

/**
 * OpenAPI summary and description of an endpoint or group: `.annotateMerge(docs("..."))`.
 * The summary is also the title: a group's title names its tag, so the docs page's sidebar
 * reads "Locations (staff mode)" rather than the group's identifier `locationsDesk`
 * (endpoints have no use for a title; their operation ids keep the identifiers).
 * `refusals`: the endpoint's named refusals (src/shared/refusals.ts), listed after the description.
 */
export const docs = (summary: string, description?: string, refusals: ReadonlyArray<Refusal> = []) => {
  const parts = [description, refusals.length > 0 ? refusalsList(refusals) : undefined].filter((part) => part !== undefined)
  return OpenApi.annotations(parts.length === 0 ? { summary, title: summary } : { summary, title: summary, description: parts.join("\n\n") })
}
