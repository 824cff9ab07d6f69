import { Schema } from "effect"
import { PageQuery } from "../../shared/pagination.ts"

/** Waivers a person signed or must sign (spec: Waiver). */
export const WAIVER_TYPES = ["Waiver", "GuardianWaiver"] as const

export const WaiverWire = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  type: Schema.Literals(WAIVER_TYPES),
  signer_id: Schema.NullOr(Schema.Int).annotate({ description: "The person who signed (a guardian for a GuardianWaiver)" }),
  signing_url: Schema.NullOr(Schema.String).annotate({ description: "Where to sign; null when there is nothing to sign" }),
  accepted: Schema.Boolean
}).annotate({ identifier: "Waiver" })
export type WaiverWire = typeof WaiverWire.Type

export const WaiverRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  type: Schema.Literals(WAIVER_TYPES),
  signer_id: Schema.NullOr(Schema.Number),
  signing_url: Schema.NullOr(Schema.String),
  accepted: Schema.Boolean
})
export type WaiverRow = typeof WaiverRow.Type

export const toWaiverWire = (row: WaiverRow): WaiverWire => ({ ...row })

/** Pages of a person's waivers. */
export const WaiverListQuery = Schema.Struct(PageQuery)
export type WaiverListQuery = typeof WaiverListQuery.Type
