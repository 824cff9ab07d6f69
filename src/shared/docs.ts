import { OpenApi } from "effect/http-api"

/**
 * OpenAPI summary and description of an endpoint or group: `.annotateMerge(docs("..."))`.
 * The summary is also the title: a group's title names its tag, so the docs page's sidebar
 * reads "Locations (staff mode)" rather than the group's identifier `locationsDesk`
 * (endpoints have no use for a title; their operation ids keep the identifiers).
 */
export const docs = (summary: string, description?: string) =>
  OpenApi.annotations(description === undefined ? { summary, title: summary } : { summary, title: summary, description })
