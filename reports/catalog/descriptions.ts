/**
 * One-line descriptions of catalog names, for the served catalog. These are words
 * only: which names exist, their types, values and what a query may do with them come from
 * the catalogs the compiler reads (describe.ts), so a name here that no catalog has is never
 * shown, and a catalog name missing here still gets a description from the rules below.
 *
 * The meanings are the spec's ("Resources and their fields"); a name that means one thing
 * across resources is written once.
 */

const MEANINGS: Readonly<Record<string, string>> = {
  // General rules
  business_id: "Id of the business the row belongs to",
  business_name: "Name of the business the row belongs to",
  business_subdomain: "Subdomain of the business the row belongs to",
  franchise_id: "Id of the franchise holding of the business, when it is a franchisee",
  currency_code: "Three-letter ISO 4217 code of the row's money fields",
  key: "Unique, opaque key of the row: pass it as page.starting_after to continue",
  business_id_summary: "Ids of the businesses in the group, comma-separated",
  business_subdomain_summary: "Subdomains of the businesses in the group, comma-separated",
  total_count: "Rows in the group",
  custom_fields: "One field per custom field of the business (a logical field; unsupported for a franchise holding)",
  // People
  full_name: "Full name of the person",
  first_name: "First name of the person",
  middle_name: "Middle name of the person",
  last_name: "Last name of the person",
  email: "Email address of the person",
  phone: "Phone number of the person",
  address: "Postal address of the person",
  birthdate: "Date of birth (not in any time zone)",
  age: "Age in years today",
  person_id: "Id of the person",
  home_location_name: "Name of the person's home location",
  primary_staff_name: "Name of the person's primary staff member",
  account_manager_emails: "Emails of the accounts managing the client, when managed by accounts",
  account_manager_names: "Names of the accounts managing the client, when managed by accounts",
  account_manager_phones: "Phones of the accounts managing the client, when managed by accounts",
  // Clients
  account_claim_date: "Date the client claimed their online account",
  account_credit_amount: "Credit on the client's account",
  also_staff: "The client is also a staff member",
  client_since_date: "Date the client was added (the earliest, when clients were merged)",
  completed_visits: "Visits the client completed",
  current_plan_revenue_category: "Revenue categories of the client's current plans",
  current_plan_types: "Types of the client's current plans",
  current_plans: "Comma-separated names of the client's current available plans",
  days_since_last_visit: "Days since the client's last visit",
  days_until_birthday: "Days until the client's next birthday (0 on the day)",
  dependent_names: "Names of the client's dependents",
  first_visit_date: "Date of the first visit",
  future_visits: "Future non-canceled visits, waitlist excluded",
  guardian_email: "Email of the client's guardian",
  guardian_name: "Name of the client's guardian",
  has_membership: "Currently holds a usable membership-granting plan",
  has_payment_on_file: "Has a payment method on file",
  has_plan_on_hold: "Has a plan on hold",
  has_signed_waiver: "Has signed the waiver",
  is_schedulable: "Can be booked",
  last_email_bounced: "The last email sent to the client bounced",
  last_invoice_amount: "Amount of the last invoice due in the past (not canceled, on hold or a purchase request)",
  last_invoice_date: "Due date of that last invoice",
  last_invoice_id: "Id of that last invoice",
  last_invoice_unpaid: "That last invoice is open and not paid in full",
  last_membership_end_date: "End date of the last membership (null for an unlimited plan)",
  last_signed_waiver_name: "Name of the last waiver signed",
  last_site_access_date: "Date the client last used the site",
  last_visit_date: "Date of the last visit",
  last_visit_id: "Id of the last visit",
  last_visit_service: "Service of the last visit",
  net_paid_amount: "Payments less refunds",
  next_pass_plan_end_date: "End date of the next pass or plan to end (null if none or all unlimited)",
  person_state: "State of the person",
  revenue_amount: "Part of net_paid_amount not allocated to tax",
  source_name: "How the client was added",
  staff_member_who_added: "Staff member who added the client",
  tenure: "Days since client_since_date",
  tenure_group: "Tenure bucket: 0_month (last 30 days) up to 5_over_three_years",
  unpaid_visits: "Visits completed but unpaid",
  account_claim_count: "People with account_claim_date set",
  person_count: "Unique people",
  visited_site_count: "People with last_site_access_date set",
  // Schedule
  available_plans: "Plans the client could pay with (only when unpaid)",
  bulk_enrolled: "Enrolled in bulk",
  cancelled_at: "When the enrollment was canceled",
  cancelled_to_start: "Hours from cancelled_at to start_at",
  client_booked: "Booked by the client rather than by staff",
  completed_at: "When the visit was completed",
  consider_member: "The pass or plan used grants membership",
  duration_in_hours: "Duration in hours",
  duration_in_minutes: "Duration in minutes",
  end_at: "When the occurrence ends",
  start_at: "When the occurrence starts",
  estimated_amount: "Share of plan revenue attributed to the visit",
  event_id: "Id of the event",
  event_name: "Name of the event",
  event_occurrence_id: "Id of the event occurrence",
  first_visit: "The client's first visit",
  instructor_names: "Names of the occurrence's instructors",
  is_paid: "The visit is paid for",
  is_rollover: "A rollover punch was used",
  is_waitlist: "A waitlist entry rather than a visit",
  make_up_issued: "A make-up was issued",
  noshow_at: "When the client was marked as a no-show",
  paid_with: "Name of the pass or plan paid with",
  paid_with_complimentary_pass: "Paid with a complimentary pass",
  paid_with_type: "Kind of payment: membership, pack, prepaid or unpaid",
  plan_id: "Id of the plan",
  plan_product_id: "Id of the plan's product",
  punch_id: "Id of the punch used",
  punchcard_id: "Id of the punch card used",
  registered_at: "When the client registered",
  service_category: "Category of the service",
  service_date: "Date of the occurrence",
  service_day: "Weekday of the occurrence, 0 (Sunday) to 6 (Saturday)",
  service_id: "Id of the service",
  service_location_id: "Id of the occurrence's location",
  service_location_name: "Name of the occurrence's location",
  service_name: "Name of the service",
  service_state: "State of the service",
  service_time: "Start time of the occurrence",
  service_type: "Kind of service: appointment, course or group class",
  state: "State of the enrollment (visit or waitlist entry)",
  visit_id: "Id of the visit (null for a waitlist entry)",
  waitlist_id: "Id of the waitlist entry",
  waitlisted_at: "When the client joined the waitlist",
  attendance_completed: "Attendance of the occurrence was completed",
  capacity: "Places of the occurrence",
  completed_unpaid_count: "Completed visits that were unpaid",
  waitlist_to_visit_count: "Visits moved from waitlist to roster",
  enrollment_count: "Enrollments",
  visit_count: "Visits",
  event_count: "Unique events",
  event_occurrence_count: "Unique event occurrences",
  service_count: "Unique services",
  unpaid_visit_count: "Visits not paid for",
  unpaid_visit_percent: "Percent of visits unpaid",
  role: "Staff role of the staff member",
  home_location_id: "Id of the staff member's home location",
  // Money
  adjustments_amount: "Adjustments other than discounts and coupons (overrides, proration)",
  closed_at: "When the invoice was closed",
  closed_date: "Date the invoice was closed",
  commission_recipient_name: "Who receives the commission",
  coupon_code: "Coupon code applied",
  coupons_amount: "Coupon reductions",
  created_by_client: "Created by the client",
  created_by_name: "Who created it",
  days_since_invoice_due: "Days since the invoice was due (blank when due in the future)",
  discount_type: "Kind of discount: fixed or percent",
  discounts_amount: "Discounts, excluding coupons and adjustments",
  expected_amount: "Amount expected",
  expected_revenue_amount: "Revenue part of expected_amount",
  expected_tax_amount: "Tax part of expected_amount",
  failed_transactions: "Failed transactions",
  grants_membership: "Grants membership",
  gross_amount: "Price at sale including inclusive tax, excluding exclusive taxes and adjustments",
  invoice_autobill: "The invoice is charged automatically",
  invoice_due_date: "Date the invoice is due",
  invoice_id: "Id of the invoice",
  invoice_item_id: "Id of the invoice item",
  invoice_number: "Number of the invoice, unique per business",
  invoice_payer_email: "Email of the invoice's payer",
  invoice_payer_home_location: "Home location of the invoice's payer",
  invoice_payer_id: "Id of the invoice's payer",
  invoice_payer_name: "Name of the invoice's payer",
  invoice_payer_phone: "Phone of the invoice's payer",
  invoice_payer_primary_staff_name_at_sale: "Primary staff member of the payer at the sale",
  invoice_state: "State of the invoice",
  issued_at: "When the invoice was issued",
  issued_date: "Date the invoice was issued",
  net_paid_revenue_amount: "Revenue part of net_paid_amount",
  net_paid_tax_amount: "Tax part of net_paid_amount",
  outstanding_amount: "Amount still owed",
  outstanding_revenue_amount: "Revenue part of outstanding_amount",
  outstanding_tax_amount: "Tax part of outstanding_amount",
  payments_amount: "Payments received",
  refunds_amount: "Refunds given (negative)",
  product_id: "Id of the product",
  product_name: "Current name of the product",
  product_name_at_sale: "Name of the product at the sale",
  product_type: "Kind of product sold",
  purchase_request_state: "State of the purchase request",
  revenue_category: "Revenue category",
  sale_location_name: "Location of the sale",
  credit_card_name: "Card network",
  error_message: "Why the transaction failed",
  external_payment_name: "Business-designated external payment type",
  failed_at: "When the transaction failed",
  failed_date: "Date the transaction failed",
  payment_method: "How it was paid",
  payment_method_detail: "Card name, last 4 digits and expiry; or bank name and masked account number",
  payment_transaction_id: "Refunds only: the original payment",
  processing_method: "Who processed the payment",
  processor_transaction_id: "Processor's id of the transaction (such as a check number)",
  transaction_amount: "Amount of the transaction",
  transaction_at: "When the transaction happened",
  transaction_autopay: "Charged automatically",
  transaction_date: "Date of the transaction",
  transaction_id: "Id of the transaction",
  transaction_state: "State of the transaction",
  transaction_type: "Payment or refund",
  voided_at: "When the transaction was voided",
  invoice_count: "Unique invoices",
  invoice_item_count: "Unique invoice items",
  transaction_count: "Unique transactions",
  failed_count: "Transactions in state failed",
  settled_count: "Transactions in state settled",
  // Metrics and pays
  month_start_date: "First day of the month",
  quarter_start_date: "First day of the quarter",
  year_start_date: "First day of the year",
  monthly_business_count: "Monthly records",
  base_pay_amount: "Pay rate of the service",
  final_pay_amount: "Pay after bonuses and review",
  per_head_pay_amount: "Bonus per client after the minimum attendance",
  tiered_pay_amount: "Bonus at attendance thresholds",
  pay_description: "Description of the pay",
  pay_id: "Id of the pay",
  pay_period: "Pay period, as [start, end] dates",
  pay_period_start_date: "First day of the pay period",
  pay_period_end_date: "Last day of the pay period",
  pay_recorded_at: "When the pay was recorded",
  pay_reviewed_at: "When the pay was reviewed",
  pay_reviewed_by_id: "Id of the reviewer",
  pay_reviewed_by_name: "Name of the reviewer",
  pay_reviewed_date: "Date the pay was reviewed",
  pay_state: "State of the pay: approved, denied or pending",
  pay_type: "Kind of pay: adhoc, commission, service or tip",
  service_hours: "Hours of service (zero unless the pay type is service)",
  staff_home_location_name: "Home location of the staff member",
  staff_name: "Name of the staff member",
  staff_id: "Id of the staff member",
  pay_count: "Unique pays",
  // Person plans
  allowed_visit_count: "Visits the plan allows (null if unlimited)",
  end_date: "Last day of the plan (null if unlimited)",
  last_usable_date: "Earliest of end_date, exhausted_at and deactivated_at",
  plan_type: "Kind of plan",
  next_plan_type: "Kind of the next plan",
  invoice_interval_unit: "Billing interval (not_applicable for a pack or prepaid)"
}

const BUCKETS: ReadonlyArray<readonly [string, string]> = [
  ["_month_start_date", "First day of the month"],
  ["_quarter_start_date", "First day of the quarter"],
  ["_week_mon_start_date", "Monday starting the week"],
  ["_week_sun_start_date", "Sunday starting the week"],
  ["_year_start_date", "First day of the year"]
]

const words = (name: string) => name.replace(/_/g, " ")

/**
 * A one-line description of a catalog name (`kind` tells a summary field from a row value;
 * `rowType` gives the type of the resource's row values, which tells a count of true flags
 * from a count of unique values).
 */
export const describeName = (
  name: string,
  kind: "detail" | "summary" | "grouping" | "logical",
  rowType: (name: string) => string | undefined = () => undefined
): string => {
  const meaning = MEANINGS[name]
  if (meaning !== undefined) return meaning
  for (const [suffix, text] of BUCKETS) {
    if (name.endsWith(suffix)) return `${text} of ${words(name.slice(0, -suffix.length))} (date bucket)`
  }
  if (kind === "summary") {
    const weekday = /^weekday_(\d)_enrollment_count$/.exec(name)
    if (weekday) return `Enrollments whose service_day is ${weekday[1]} (0 = Sunday)`
    const processing = /^total_net_(\w+)_processing_paid_amount$/.exec(name)
    if (processing) return `Sum of net_paid_amount where processing_method is ${processing[1]}`
    const method = /^total_net_(\w+)_paid_amount$/.exec(name)
    if (method && method[1] !== "") return `Sum of net_paid_amount paid by ${words(method[1]!)}`
    if (name.startsWith("total_")) return `Sum of ${name.slice("total_".length)}`
    if (name.startsWith("avg_")) return `Average of ${name.slice("avg_".length)}`
    const state = /^(\w+)_enrollment_count$/.exec(name)
    if (state) return `Enrollments in state ${state[1]}`
    if (name.endsWith("_count")) {
      const base = name.slice(0, -"_count".length)
      return rowType(base) === "boolean" ? `Rows where ${base} is true` : `Unique values of ${base}`
    }
  }
  if (name.endsWith("_id")) return `Id of the ${words(name.slice(0, -3))}`
  if (name.endsWith("_at")) return `When ${words(name.slice(0, -3))} happened`
  if (name.endsWith("_date")) return `Date of ${words(name.slice(0, -5))}`
  if (name.endsWith("_amount")) return `${words(name.slice(0, -7)).replace(/^./, (c) => c.toUpperCase())} amount`
  if (name.endsWith("_count")) return `Count of ${words(name.slice(0, -6))}`
  if (name.startsWith("is_") || name.startsWith("has_")) return `Whether the row ${words(name)}`
  return words(name).replace(/^./, (c) => c.toUpperCase())
}
