/** The rows the import writes, as src/tools/import/repo.ts takes them (column names as in sql/migrations). */
export interface BusinessInsert {
  readonly subdomain: string
  readonly name: string
  readonly time_zone: string
  readonly currency_code: string
  readonly default_locale: string
  readonly franchise_parent_id: number | null
  readonly website: string | null
  readonly email_address: string | null
  readonly phone: string | null
  readonly brand_colors: Readonly<Record<string, string>>
  readonly logo_url: string | null
  readonly cover_photo_url: string | null
}

export interface LocationInsert {
  readonly business_id: number
  readonly name: string
  readonly slug: string
  readonly address: string | null
  readonly latitude: number | null
  readonly longitude: number | null
  readonly phone: string | null
  readonly description: string | null
  readonly time_zone: string
  readonly show_in_client_mode: boolean
  readonly position: number
}

export interface CustomFieldInsert {
  readonly business_id: number
  readonly name: string
  readonly why: string | null
  readonly data_type: string
  readonly multi_select: boolean
  readonly hidden_in_client_mode: boolean
  readonly required: boolean
  readonly position: number
}

export interface CustomFieldOptionInsert {
  readonly business_id: number
  readonly custom_field_id: number
  readonly value: string
  readonly position: number
}

export interface AccountUpsert {
  readonly email: string
  readonly first_name: string
  readonly last_name: string
  readonly password_hash: string | null
}

export interface PersonInsert {
  readonly business_id: number
  readonly id: number
  readonly account_id: number | null
  readonly first_name: string
  readonly middle_name: string | null
  readonly last_name: string
  readonly email: string | null
  readonly phone: string | null
  readonly birthdate: string | null
  readonly is_member: boolean
  readonly location_id: number | null
}

export interface StaffMemberInsert {
  readonly business_id: number
  readonly person_id: number
  readonly role: string
  readonly bio: string | null
  readonly hidden_in_client_mode: boolean
}

export interface RelationshipInsert {
  readonly business_id: number
  readonly provider_id: number
  readonly dependent_id: number
}

export interface FormOfPaymentInsert {
  readonly business_id: number
  readonly person_id: number
  readonly type: "ach"
  readonly first_name: string
  readonly last_name: string
  readonly autobill: boolean
  readonly account_name: string
  readonly account_type: "savings" | "checking"
  readonly account_holder_type: "personal" | "business"
  readonly account_number_masked: string
  readonly routing_number_masked: string
}

export interface WaiverInsert {
  readonly business_id: number
  readonly person_id: number
  readonly name: string
  readonly type: "Waiver" | "GuardianWaiver"
  readonly signer_id: number | null
  readonly signing_url: string | null
  readonly accepted: boolean
}

export interface SalesTaxInsert {
  readonly business_id: number
  readonly name: string
  readonly tax_rate: number
  readonly inclusive: boolean
}

/** A plan_products row (sql/migrations/0011): the import sets every column it knows. */
export interface PlanProductInsert {
  readonly business_id: number
  readonly kind: string
  readonly name: string
  readonly description: string | null
  readonly description_long: string | null
  readonly price_cents: number
  readonly visibility: string
  readonly suspended: boolean
  readonly count: number | null
  readonly limit_period: string | null
  readonly commitment_length: number | null
  readonly commitment_unit: string | null
  readonly invoice_interval_count: number | null
  readonly invoice_interval_unit: string | null
  readonly stop_renewing_after_commitment: boolean
  readonly cancellation_fee_cents: number | null
  readonly signup_fee_cents: number | null
  readonly rollover_limit: number | null
  readonly staff_specific_pricing: boolean
  readonly location_id: number | null
  readonly consider_member: boolean
  readonly revenue_category_id: number | null
  readonly terms: string | null
  readonly terms_acceptance_required: boolean
  readonly terms_acceptance_type: string
  readonly terms_acceptance_at_checkout: boolean
  readonly send_expiration_notifications: boolean
}
