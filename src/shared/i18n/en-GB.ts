import { type Catalog, en } from "./en.ts"

/** British English: the English catalog, with the spellings and phrasings that differ. */
export const enGB: Catalog = {
  ...en,
  link_forgot_password: "Forgotten your password?",
  reset_invalid: "This link is no longer valid: it has already been used or it has expired. Ask for a new one.",
  csrf_failed: "The form has expired. Please try again.",
  person_relationship_both_ways: "Person %{id} cannot be both a provider and a dependant of this person",
  person_delete_dependents: "This person has dependants (%{count}); remove them or give them another provider first",
  eligibility_client_purchase_disabled: "Unable to enrol in this event",
  eligibility_clients_not_allowed: "You must be a member to enrol in this event",
  eligibility_inside_blackout_window: "It's too late to enrol for this event",
  eligibility_too_far_in_advance: "It's too early to enrol for this event",
  eligibility_members_not_allowed: "This event doesn't offer online enrolment",
  make_up_visit_not_late_canceled: "A make-up can only be generated for a late-cancelled visit (this one is %{state})",
  make_up_exists: "A make-up has already been generated for visit %{id}",
  mail_visit_confirmation_subject: "Enrolment confirmed: %{event}",
  mail_visit_cancellation_subject: "Enrolment cancelled: %{event}",
  mail_visit_cancellation_body: "Hello %{name},\n\nThe enrolment of %{person} in %{event} at %{business} on %{start} has been cancelled.",
  waitlist_person_already_waitlisted: "Already on the waiting list",
  waitlist_full: "The waiting list is full",
  waitlist_disabled: "This event has no waiting list",
  waitlist_unavailable: "This event still has places: enrol instead of joining the waiting list",
  mail_waitlist_enrolled_body: "Hello %{name},\n\nA place became free in %{event} on %{start}, and you were next on the waiting list: you are now enrolled.\n\n%{business}",
  // who may move money
  invoice_owed_manager_required: "Invoice %{id} is %{state}: only a manager or an owner may change, hold or cancel what the client owes",
  // sign-in and proxies
  sign_in_throttled: "Too many failed sign-ins for this email address or from your network. Try again in %{seconds} seconds, or reset your password by email.",
  mail_throttled: "Too many emails requested. Please try again in %{seconds} seconds.",
  // bounded input
  body_too_large: "The request body is larger than %{max} bytes",
  form_too_deep: "The form body is nested too deeply: at most %{max} levels",
  form_too_many_fields: "The form body has too many fields: at most %{max} fields",
  nul_character: "The request contains a NUL character, which no field accepts",
  return_to_invalid: "return_to must not contain control characters",
  report_too_many_fields: "fields may name at most %{max} fields for %{resource}",
  report_duplicate_field: "The field %{name} is named more than once",
  report_too_many_sort_keys: "sort may name at most %{max} sort keys",
  report_duplicate_sort: "sort names %{name} more than once",
  // secrets and sessions
  plan_terms_completion_invalid: "This signing link has already been used or has expired; open the terms again for a new one",
  // client shapes
  invoice_item_body_twice: "Send plan_product either alone or inside invoice_item, not both",
  // spec rules
  person_delete_open_invoices: "This person has open invoices (%{numbers}); close or cancel them first",
  invoice_detail_visits: "Visits: %{count}",
  invoice_detail_visits_unlimited: "Unlimited visits",
  invoice_detail_visits_per_week: "Visits per week: %{count}",
  invoice_detail_visits_per_month: "Visits per month: %{count}",
  invoice_detail_visits_per_year: "Visits per year: %{count}",
  invoice_detail_unit_day: "days",
  invoice_detail_unit_week: "weeks",
  invoice_detail_unit_month: "months",
  invoice_detail_unit_year: "years",
  invoice_detail_valid: "Valid for (%{unit}): %{count}",
  invoice_detail_commitment: "Commitment (%{unit}): %{count}",
  invoice_detail_billed: "Billed every (%{unit}): %{count}",
  invoice_detail_first_period: "Visits in the first period: %{count}",
  refund_not_settled: "Refund %{id} is %{state} and cannot be voided",
  person_not_deleted: "Person %{id} is not deleted",
  // the report catalog
  report_unknown_field_hint: "Unknown field %{name} for %{resource}: did you mean %{names}?",
  report_unknown_group_hint: "Unknown group %{name} for %{resource}: did you mean %{names}?",
  report_unknown_filter_field_hint: "%{path}: unknown field %{name}: did you mean %{names}?",
  report_filter_unknown_operation_hint: "%{path}: unknown filter operation %{operation}: did you mean %{names}?",
  report_not_acceptable: "This endpoint answers %{types}: none of them is acceptable to the request's Accept header."
}
