import { Schema } from "effect"

/**
 * Why an import was refused. Nothing was written: the import runs in one transaction and
 * checks the whole document before it starts. `messages` says what to fix, one entry per
 * problem, each naming its place in the document (`clients[3].email: ...`).
 */
export class ImportError extends Schema.TaggedError<ImportError>()(
  "ImportError",
  {
    reason: Schema.Literals(["invalid_document", "subdomain_taken", "franchise_parent_not_found"]),
    messages: Schema.Array(Schema.String)
  },
  { httpApiStatus: 422, description: "The import document was refused; nothing was imported" }
) {
  override get message(): string {
    return this.messages.join("; ")
  }
}
