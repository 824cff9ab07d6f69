import type { SchemaAST, SchemaIssue } from "effect"
import { type MessageKey, t } from "./i18n.ts"
import type { Locale } from "./locale.ts"

/**
 * Turns a Schema decoding issue into the `errors` strings of a 400 answer: one message per
 * offending field, naming the field, translated. The message comes from the `messageKey`
 * annotation of the schema or check that failed (shared/schemas.ts), else from the kind of
 * value that was expected.
 */
export type IssueSource = "Params" | "Query" | "Headers" | "Payload" | "Body" | "ResponseHeaders"

interface Found {
  readonly path: ReadonlyArray<PropertyKey>
  readonly key: MessageKey
  readonly params?: Record<string, string>
}

const annotationKey = (annotations: unknown): MessageKey | undefined => {
  const key = (annotations as { readonly messageKey?: unknown } | undefined)?.messageKey
  return typeof key === "string" ? (key as MessageKey) : undefined
}

const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<string> | undefined => {
  if (ast._tag === "Literal") return [String(ast.literal)]
  if (ast._tag === "Union") {
    const all = ast.types.map(literalsOf)
    return all.every((l) => l !== undefined) ? all.flat() as Array<string> : undefined
  }
  return undefined
}

const keyForType = (ast: SchemaAST.AST): Pick<Found, "key" | "params"> => {
  const annotated = annotationKey(ast.annotations)
  if (annotated) return { key: annotated }
  const literals = literalsOf(ast)
  if (literals) return { key: "field_must_be_one_of", params: { values: literals.join(", ") } }
  switch (ast._tag) {
    case "String":
      return { key: "field_must_be_string" }
    case "Number":
      return { key: "field_must_be_number" }
    case "Boolean":
      return { key: "field_must_be_boolean" }
    case "Arrays":
      return { key: "field_must_be_array" }
    case "Objects":
      return { key: "field_must_be_object" }
    default:
      return { key: "field_is_invalid" }
  }
}

const collect = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  inherited: MessageKey | undefined,
  out: Array<Found>
): void => {
  switch (issue._tag) {
    case "Filter":
      return collect(issue.issue, path, inherited ?? annotationKey(issue.filter.annotations), out)
    case "Encoding":
      return collect(issue.issue, path, inherited ?? annotationKey(issue.ast.annotations), out)
    case "Pointer":
      return collect(issue.issue, [...path, ...issue.path], inherited, out)
    case "Composite": {
      const own = annotationKey(issue.ast.annotations)
      if (own && path.length > 0) return void out.push({ path, key: inherited ?? own })
      for (const inner of issue.issues) collect(inner, path, inherited, out)
      return
    }
    case "AnyOf": {
      if (inherited) return void out.push({ path, key: inherited })
      // A union without its own message that failed in one member only (the payload's
      // content-type union) reports that member's issues.
      const [only, ...others] = issue.issues
      if (only && others.length === 0 && !annotationKey(issue.ast.annotations)) return collect(only, path, undefined, out)
      return void out.push({ path, ...keyForType(issue.ast) })
    }
    case "MissingKey":
      return void out.push({ path, key: "field_required" })
    case "InvalidType":
      return void out.push({ path, ...(inherited ? { key: inherited } : keyForType(issue.ast)) })
    case "InvalidValue":
      // HttpApi's own message for a body that does not parse as JSON.
      if (issue.annotations?.message === "Expected a valid JSON body") return void out.push({ path, key: "invalid_json" })
      return void out.push({ path, key: inherited ?? "field_is_invalid" })
    default:
      return void out.push({ path, key: inherited ?? "field_is_invalid" })
  }
}

const fieldName = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((segment, i) => (typeof segment === "number" ? `[${segment}]` : `${i > 0 ? "." : ""}${String(segment)}`))
    .join("")

export const issueMessages = (issue: SchemaIssue.Issue, source: IssueSource, locale: Locale): ReadonlyArray<string> => {
  const found: Array<Found> = []
  collect(issue, [], undefined, found)
  const messages = found.map(({ key, params, path }) => {
    if (source === "Payload") {
      if (path.length === 0) return t(locale, key === "invalid_json" ? key : "body_must_be_object")
      // Bodies are wrapped in the singular resource name: report the field inside the wrapper.
      if (path.length === 1 && key === "field_required") return t(locale, "body_root_missing", { root: String(path[0]) })
      return t(locale, key, { ...params, field: fieldName(path.length > 1 ? path.slice(1) : path) })
    }
    return t(locale, key, { ...params, field: fieldName(path) })
  })
  return [...new Set(messages)]
}
