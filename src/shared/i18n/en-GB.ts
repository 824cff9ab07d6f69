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
  // sign-in and proxies
  sign_in_throttled: "Too many failed sign-ins for this email address or from your network. Try again in %{seconds} seconds, or reset your password by email.",
  mail_throttled: "Too many emails requested. Please try again in %{seconds} seconds.",
  // secrets and sessions
  plan_terms_completion_invalid: "This signing link has already been used or has expired; open the terms again for a new one"
}
