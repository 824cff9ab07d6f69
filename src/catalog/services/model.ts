import { Schema } from "effect"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { Timestamp } from "../../shared/schemas.ts"

/**
 * Services: what a business schedules (spec, vocabulary: Appointment, GroupClass, Course),
 * with the online booking rules enrollment eligibility reads. Wire fields follow the
 * compatibility notes ("service"); staff mode adds the visibility and booking-window settings.
 */
export const SERVICE_TYPES = ["Appointment", "GroupClass", "Course"] as const
export type ServiceType = (typeof SERVICE_TYPES)[number]

/**
 * Appointment slots start every 15 minutes from the start of a staff member's hours
 * (availability); services report it as their `snap_duration_in_minutes`.
 */
export const SLOT_STEP_MINUTES = 15

export const SERVICE_VISIBILITIES = ["Everyone", "Members", "Staff"] as const
export type ServiceVisibility = (typeof SERVICE_VISIBILITIES)[number]

const Price = Schema.Struct({
  currency_iso: Schema.String.annotate({ description: "ISO 4217 code of the business's currency" }),
  price_cents: Cents,
  price_string: FormattedMoney.annotate({ description: "The price formatted for the currency and the request's locale" })
}).annotate({ identifier: "Price" })

export const ServicePricing = Schema.Struct({
  drop_in_price_cents: Schema.NullOr(Cents).annotate({ description: "Price of a single visit; null when not sold by the visit" }),
  drop_in_price: Schema.NullOr(FormattedMoney),
  number_of_free_visits: Schema.Int.annotate({ description: "Visits a new client may take for free" }),
  single_visit: Schema.NullOr(
    Schema.Struct({
      base_price: Price,
      taxes: Schema.Array(Schema.String).annotate({
        description: "Names of the sales taxes added to the price (none until sales taxes are configured)"
      })
    })
  ).annotate({ description: "The price of a single visit (the drop-in price); null when not sold by the visit" })
}).annotate({ identifier: "ServicePricing" })

export const ServiceFront = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  type: Schema.Literals(SERVICE_TYPES),
  position: Schema.Int,
  description: Schema.NullOr(Schema.String),
  description_short: Schema.NullOr(Schema.String),
  instructions: Schema.NullOr(Schema.String),
  duration_in_minutes: Schema.Int,
  enrollment_window_blackout_minutes: Schema.Int.annotate({ description: "Online enrollment closes this many minutes before the start" }),
  free_cancellation_window_in_hours: Schema.Int,
  clients_can_book: Schema.Boolean.annotate({ description: "Clients who are not members may enroll online" }),
  members_can_book: Schema.Boolean.annotate({ description: "Members may enroll online" }),
  require_cc: Schema.Boolean.annotate({ description: "A credit card on file is expected to enroll" }),
  require_plan: Schema.Boolean.annotate({ description: "A plan (pass or membership) covering the service is needed to enroll" }),
  maximum_clients: Schema.NullOr(Schema.Int).annotate({ description: "Places per occurrence; null: unlimited" }),
  calendar_color: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(Schema.Int),
  category_name: Schema.NullOr(Schema.String),
  pricing: ServicePricing
}).annotate({ identifier: "ServiceFront" })

export const ServiceDesk = Schema.Struct({
  ...ServiceFront.fields,
  visibility: Schema.Literals(SERVICE_VISIBILITIES).annotate({
    description: "Who sees the service in client mode: Everyone, Members (members only) or Staff (nobody)"
  }),
  hidden: Schema.Boolean,
  hidden_at: Schema.NullOr(Timestamp),
  visitors_can_view: Schema.Boolean.annotate({ description: "Shown in client mode without a token (visibility Everyone)" }),
  clients_can_view: Schema.Boolean.annotate({ description: "Shown to clients who are not members (visibility Everyone)" }),
  members_can_view: Schema.Boolean.annotate({ description: "Shown to members (visibility Everyone or Members)" }),
  anonymous_staff: Schema.Boolean.annotate({ description: "Clients are not told which staff member gives it" }),
  snap_duration_in_minutes: Schema.NullOr(Schema.Int).annotate({
    description: "Appointments: available start times are this many minutes apart; null for classes and courses"
  }),
  setup_duration_in_minutes: Schema.Int.annotate({ description: "Time blocked before each appointment (none: 0)" }),
  cleanup_duration_in_minutes: Schema.Int.annotate({ description: "Time blocked after each appointment (none: 0)" }),
  show_capacity_to_clients: Schema.NullOr(Schema.Boolean).annotate({
    description: "Clients see the places left; null: the business's default"
  }),
  show_rooms_to_clients: Schema.Boolean.annotate({ description: "Clients see the room of each occurrence" }),
  allow_tips: Schema.Boolean.annotate({ description: "Clients may add a tip when paying" }),
  no_merchandise_price: Schema.NullOr(Schema.Boolean).annotate({
    description: "Sold without a merchandise price; null: not set"
  }),
  supports_single_payer: Schema.Boolean.annotate({ description: "One person may pay for the visits of several" }),
  online_booking: Schema.Boolean.annotate({ description: "Clients may book it online (client mode) at all" }),
  client_purchase_disabled: Schema.Boolean.annotate({ description: "Clients cannot pay for it online; staff enroll them" }),
  booking_window_days: Schema.NullOr(Schema.Int).annotate({
    description: "Online enrollment opens at local midnight this many days before the day of the class; null: any time"
  }),
  staff_member_ids: Schema.Array(Schema.Int).annotate({ description: "Appointments: the staff members who give it" }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "ServiceDesk" })
export type ServiceDesk = typeof ServiceDesk.Type

export const ServiceCategory = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  position: Schema.Int,
  description: Schema.NullOr(Schema.String),
  description_short: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ServiceCategory" })
export type ServiceCategory = typeof ServiceCategory.Type

/** A row of `services` as the repos read it. */
export const ServiceRow = Schema.Struct({
  id: Schema.Number,
  type: Schema.Literals(SERVICE_TYPES),
  name: Schema.String,
  position: Schema.Number,
  description: Schema.NullOr(Schema.String),
  description_short: Schema.NullOr(Schema.String),
  instructions: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(Schema.Number),
  category_name: Schema.NullOr(Schema.String),
  duration_in_minutes: Schema.Number,
  calendar_color: Schema.NullOr(Schema.String),
  visibility: Schema.Literals(SERVICE_VISIBILITIES),
  hidden_at: Schema.NullOr(Schema.Date),
  online_booking: Schema.Boolean,
  clients_can_book: Schema.Boolean,
  members_can_book: Schema.Boolean,
  client_purchase_disabled: Schema.Boolean,
  require_cc: Schema.Boolean,
  require_plan: Schema.Boolean,
  enrollment_window_blackout_minutes: Schema.Number,
  booking_window_days: Schema.NullOr(Schema.Number),
  free_cancellation_window_in_hours: Schema.Number,
  maximum_clients: Schema.NullOr(Schema.Number),
  drop_in_price_cents: Schema.NullOr(Schema.Number),
  number_of_free_visits: Schema.Number,
  anonymous_staff: Schema.Boolean,
  show_capacity_to_clients: Schema.NullOr(Schema.Boolean),
  show_rooms_to_clients: Schema.Boolean,
  allow_tips: Schema.Boolean,
  no_merchandise_price: Schema.NullOr(Schema.Boolean),
  supports_single_payer: Schema.Boolean,
  staff_member_ids: Schema.Array(Schema.Number),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type ServiceRow = typeof ServiceRow.Type

export const CategoryRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  position: Schema.Number,
  description: Schema.NullOr(Schema.String),
  description_short: Schema.NullOr(Schema.String)
})
export type CategoryRow = typeof CategoryRow.Type

/** What a service insert needs (the import, tests). */
export interface ServiceInsert {
  readonly type: ServiceType
  readonly name: string
  readonly position?: number
  readonly description?: string | null
  readonly description_short?: string | null
  readonly instructions?: string | null
  readonly category_id?: number | null
  readonly duration_in_minutes: number
  readonly calendar_color?: string | null
  readonly visibility?: ServiceVisibility
  readonly hidden_at?: Date | null
  readonly online_booking?: boolean
  readonly clients_can_book?: boolean
  readonly members_can_book?: boolean
  readonly client_purchase_disabled?: boolean
  readonly require_cc?: boolean
  readonly require_plan?: boolean
  readonly enrollment_window_blackout_minutes?: number
  readonly booking_window_days?: number | null
  readonly free_cancellation_window_in_hours?: number
  readonly maximum_clients?: number | null
  readonly drop_in_price_cents?: number | null
  readonly number_of_free_visits?: number
  readonly anonymous_staff?: boolean
  readonly show_capacity_to_clients?: boolean | null
  readonly show_rooms_to_clients?: boolean
  readonly allow_tips?: boolean
  readonly no_merchandise_price?: boolean | null
  readonly supports_single_payer?: boolean
  readonly staff_member_ids?: ReadonlyArray<number>
}
