import { BadRequest, Forbidden, NotFound } from "../src/shared/errors.ts"
import { refusal } from "../src/shared/refusals.ts"

/**
 * The Reporting API's named refusals. A query's validation problems are 400s gathered by the
 * grammar, normalize.ts and run.ts (every one found at once, `.message(...)`), then answered
 * together; the query endpoints list them all from here.
 */
export const ReportRefusals = {
  reportAccessDenied: refusal(Forbidden, "report_access_denied"),
  reportUnknownResource: refusal(NotFound, "report_unknown_resource"),
  ownerRequired: refusal(Forbidden, "owner_required")
}

/** A query's validation problems (400): fields, grouping, sort, page. */
export const QueryRefusals = {
  fieldsRequired: refusal(BadRequest, "report_fields_required"),
  tooManyFields: refusal(BadRequest, "report_too_many_fields"),
  duplicateField: refusal(BadRequest, "report_duplicate_field"),
  unknownField: refusal(BadRequest, "report_unknown_field"),
  unknownFieldHint: refusal(BadRequest, "report_unknown_field_hint"),
  detailFieldWithGroup: refusal(BadRequest, "report_detail_field_with_group"),
  summaryFieldWithoutGroup: refusal(BadRequest, "report_summary_field_without_group"),
  unknownGroup: refusal(BadRequest, "report_unknown_group"),
  unknownGroupHint: refusal(BadRequest, "report_unknown_group_hint"),
  customFieldsFranchise: refusal(BadRequest, "report_custom_fields_franchise"),
  tooManySortKeys: refusal(BadRequest, "report_too_many_sort_keys"),
  invalidSort: refusal(BadRequest, "report_invalid_sort"),
  duplicateSort: refusal(BadRequest, "report_duplicate_sort"),
  unknownSort: refusal(BadRequest, "report_unknown_sort"),
  pageLimit: refusal(BadRequest, "report_page_limit"),
  startingAfterInvalid: refusal(BadRequest, "report_starting_after_invalid"),
  startingAfterUnknown: refusal(BadRequest, "report_starting_after_unknown")
}

/** A query's filter problems (400), each naming the filter's path. */
export const FilterRefusals = {
  tooLarge: refusal(BadRequest, "report_filter_too_large"),
  notList: refusal(BadRequest, "report_filter_not_list"),
  list: refusal(BadRequest, "report_filter_list"),
  fieldOnly: refusal(BadRequest, "report_filter_field_only"),
  between: refusal(BadRequest, "report_filter_between"),
  unknownOperation: refusal(BadRequest, "report_filter_unknown_operation"),
  unknownOperationHint: refusal(BadRequest, "report_filter_unknown_operation_hint"),
  fieldValue: refusal(BadRequest, "report_filter_field_value"),
  unknownField: refusal(BadRequest, "report_unknown_filter_field"),
  unknownFieldHint: refusal(BadRequest, "report_unknown_filter_field_hint"),
  operationType: refusal(BadRequest, "report_filter_operation_type"),
  value: refusal(BadRequest, "report_filter_value"),
  enumValue: refusal(BadRequest, "report_filter_enum_value")
}

/** Every refusal a query endpoint can answer, for its OpenAPI description. */
export const QUERY_ENDPOINT_REFUSALS = [
  ReportRefusals.reportAccessDenied,
  ReportRefusals.reportUnknownResource,
  ...Object.values(QueryRefusals),
  ...Object.values(FilterRefusals)
]
