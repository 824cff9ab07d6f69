import { Schema } from "effect"
import { Timestamp, formatTimestamp } from "../../shared/schemas.ts"

/**
 * The terms of a plan (spec: Plan terms, client mode): one record per plan, accepted by the
 * person paying for it. Checkbox terms are accepted by calling `complete`; document terms are
 * signed with the signing provider, whose verdict `complete` records.
 */
export const ACCEPTANCE_TYPES = ["checkbox", "document"] as const
export type AcceptanceType = (typeof ACCEPTANCE_TYPES)[number]

export const PlanTermsRow = Schema.Struct({
  id: Schema.Number,
  plan_id: Schema.Number,
  payer_person_id: Schema.Number,
  acceptance_type: Schema.Literals(ACCEPTANCE_TYPES),
  terms: Schema.String,
  document_id: Schema.NullOr(Schema.String),
  accepted_at: Schema.NullOr(Schema.Date),
  declined_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  payer_name: Schema.String,
  payer_email: Schema.NullOr(Schema.String)
})
export type PlanTermsRow = typeof PlanTermsRow.Type

export const PlanTermsWire = Schema.Struct({
  id: Schema.Int,
  plan_id: Schema.Int,
  acceptance_type: Schema.Literals(ACCEPTANCE_TYPES).annotate({
    description: "checkbox: accept by calling complete; document: sign at signing_url, then complete"
  }),
  terms: Schema.String.annotate({ description: "The text of the terms" }),
  accepted: Schema.Boolean,
  accepted_at: Schema.NullOr(Timestamp),
  declined_at: Schema.NullOr(Timestamp).annotate({ description: "Document terms the payer declined to sign (final)" }),
  signing_url: Schema.NullOr(Schema.String).annotate({
    description:
      "Document terms: where the payer signs (a short-lived address; ask again for a new one). Empty when signing is " +
      "unavailable (the provider could not be reached) or there is nothing left to sign (signed or declined). Null for checkbox terms."
  }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "PlanTerms" })
export type PlanTermsWire = typeof PlanTermsWire.Type

export const toPlanTermsWire = (row: PlanTermsRow, signingUrl: string | null): PlanTermsWire => ({
  id: row.id,
  plan_id: row.plan_id,
  acceptance_type: row.acceptance_type,
  terms: row.terms,
  accepted: row.accepted_at !== null,
  accepted_at: row.accepted_at ? formatTimestamp(row.accepted_at) : null,
  declined_at: row.declined_at ? formatTimestamp(row.declined_at) : null,
  signing_url: row.acceptance_type === "document" ? signingUrl ?? "" : null,
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

/** Every answer: the plan's one terms record, under a pluralized root. */
export const PlanTermsList = Schema.Struct({ plan_terms: Schema.Array(PlanTermsWire) })
