import { Schema } from "effect"

/** A business as client mode sees it (compatibility notes, "business"). */
export const BusinessFront = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  subdomain: Schema.String,
  default_locale: Schema.String,
  currency_code: Schema.String,
  website: Schema.NullOr(Schema.String),
  email_address: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  time_zone: Schema.String
}).annotate({ identifier: "BusinessFront" })

export const BusinessDesk = Schema.Struct({
  ...BusinessFront.fields,
  is_franchise: Schema.Boolean.annotate({
    description: "True for a franchise holding (it has franchisees) and for a franchisee (it has a franchise parent)"
  })
}).annotate({ identifier: "BusinessDesk" })

export const BusinessRow = Schema.Struct({ ...BusinessDesk.fields, id: Schema.Number })
export type BusinessRow = typeof BusinessRow.Type

const Color = Schema.NullOr(Schema.String.annotate({ description: "CSS hex color, e.g. #1a73e8" }))
const ImageUrl = Schema.NullOr(Schema.String.annotate({ description: "Absolute image URL" }))

/** Branding is a bare object, without a root key, as in the public API (compatibility notes). */
export const Branding = Schema.Struct({
  colors: Schema.Struct({
    accent: Color,
    brand: Color,
    header: Color,
    background: Color,
    client_mode_accent: Color,
    client_mode_brand: Color,
    client_mode_header: Color,
    client_mode_background: Color,
    client_mode_navigation: Color
  }),
  logo: Schema.Struct({ x50: ImageUrl, x50_2x: ImageUrl, x75: ImageUrl, x75_2x: ImageUrl, full: ImageUrl }),
  cover_photo: Schema.Struct({ full: ImageUrl })
}).annotate({ identifier: "Branding" })
export type Branding = typeof Branding.Type

export const BRAND_COLOR_KEYS = [
  "accent",
  "brand",
  "header",
  "background",
  "client_mode_accent",
  "client_mode_brand",
  "client_mode_header",
  "client_mode_background",
  "client_mode_navigation"
] as const

export const BrandingRow = Schema.Struct({
  brand_colors: Schema.Record(Schema.String, Schema.Unknown),
  logo_url: Schema.NullOr(Schema.String),
  cover_photo_url: Schema.NullOr(Schema.String)
})
