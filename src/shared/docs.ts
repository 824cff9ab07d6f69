import { OpenApi } from "effect/http-api"

/** OpenAPI summary and description of an endpoint or group: `.annotateMerge(docs("..."))`. */
export const docs = (summary: string, description?: string) =>
  OpenApi.annotations(description === undefined ? { summary } : { summary, description })
