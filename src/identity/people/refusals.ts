import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the people endpoints (and of the client reach other domains check through). */
export const PeopleRefusals = {
  fieldTooLong: refusal(Unprocessable, "field_too_long"),
  fieldRequired: refusal(Unprocessable, "field_required"),
  fieldIsInvalid: refusal(Unprocessable, "field_is_invalid"),
  fieldTaken: refusal(Unprocessable, "field_taken"),
  fieldIdNotFound: refusal(Unprocessable, "field_id_not_found"),
  inviteNeedsEmail: refusal(Unprocessable, "invite_needs_email"),
  customFieldNotFound: refusal(Unprocessable, "custom_field_not_found"),
  fieldMustBeString: refusal(Unprocessable, "field_must_be_string"),
  fieldMustBeBoolean: refusal(Unprocessable, "field_must_be_boolean"),
  fieldOptionInvalid: refusal(Unprocessable, "field_option_invalid"),
  fieldSingleOption: refusal(Unprocessable, "field_single_option"),
  personMeNotFound: refusal(NotFound, "person_me_not_found"),
  personNotFound: refusal(NotFound, "person_not_found"),
  personNotDeleted: refusal(Unprocessable, "person_not_deleted"),
  personSelfRelationship: refusal(Unprocessable, "person_self_relationship"),
  fieldSingleProvider: refusal(Unprocessable, "field_single_provider"),
  personRelationshipBothWays: refusal(Unprocessable, "person_relationship_both_ways"),
  personDeleteSelf: refusal(Unprocessable, "person_delete_self"),
  personDeleteStaff: refusal(Unprocessable, "person_delete_staff"),
  personDeleteDependents: refusal(Unprocessable, "person_delete_dependents"),
  personDeleteFutureVisits: refusal(Unprocessable, "person_delete_future_visits"),
  personDeleteActivePlans: refusal(Unprocessable, "person_delete_active_plans"),
  personDeleteOpenInvoices: refusal(Unprocessable, "person_delete_open_invoices"),
  fieldMustBeOneOf: refusal(BadRequest, "field_must_be_one_of")
}

/** The rules every person write checks on its attributes and custom field values (attributes.ts). */
export const personAttributeRefusals = [
  PeopleRefusals.fieldTooLong,
  PeopleRefusals.fieldRequired,
  PeopleRefusals.fieldIsInvalid,
  PeopleRefusals.fieldTaken,
  PeopleRefusals.fieldIdNotFound,
  PeopleRefusals.inviteNeedsEmail,
  PeopleRefusals.customFieldNotFound,
  PeopleRefusals.fieldMustBeString,
  PeopleRefusals.fieldMustBeBoolean,
  PeopleRefusals.fieldOptionInvalid,
  PeopleRefusals.fieldSingleOption
]
