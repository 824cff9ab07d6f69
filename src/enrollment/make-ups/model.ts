import { Schema } from "effect"
import { IntInput, Timestamp } from "../../shared/schemas.ts"

/**
 * Make-ups: the right to attend another session of the service, given by staff for a
 * late-canceled visit (spec: POST /desk/make_ups/generate). A make-up is given, not sold, so it
 * is its own record rather than a single-visit pass plan; `expires_on` stays null (no expiry).
 */
export const MakeUpReason = Schema.Struct({ id: Schema.Int, name: Schema.String }).annotate({ identifier: "MakeUpReason" })

export const MakeUpWire = Schema.Struct({
  id: Schema.Int,
  visit_id: Schema.Int,
  person_id: Schema.Int,
  service_id: Schema.Int,
  make_up_reason_id: Schema.NullOr(Schema.Int),
  free_form_reason: Schema.NullOr(Schema.String),
  expires_on: Schema.NullOr(Schema.String).annotate({ description: "Date (YYYY-MM-DD); null: no expiry" }),
  created_at: Timestamp
}).annotate({ identifier: "MakeUp" })
export type MakeUpWire = typeof MakeUpWire.Type

export const MakeUpRow = Schema.Struct({
  id: Schema.Number,
  visit_id: Schema.Number,
  person_id: Schema.Number,
  service_id: Schema.Number,
  make_up_reason_id: Schema.NullOr(Schema.Number),
  free_form_reason: Schema.NullOr(Schema.String),
  expires_on: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})
export type MakeUpRow = typeof MakeUpRow.Type

/** The spec's body is not wrapped: `visit_id` and an optional `make_up` object beside it. */
export const GenerateMakeUpInput = Schema.Struct({
  visit_id: Schema.optional(IntInput.annotate({ description: "Required: the late-canceled visit" })),
  make_up: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        make_up_reason_id: Schema.optional(Schema.NullOr(IntInput).annotate({ description: "Required when make_up is sent" })),
        free_form_reason: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "At most 1000 characters" }))
      })
    )
  )
}).annotate({ identifier: "GenerateMakeUp" })
export type GenerateMakeUpInput = typeof GenerateMakeUpInput.Type

export const FREE_FORM_REASON_MAX = 1000
