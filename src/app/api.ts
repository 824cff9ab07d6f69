import { OpenApi } from "effect/http-api"
import { apiOf } from "../shared/http-api.ts"
import { AccountApi, AccountPasswordsApi } from "../identity/accounts/api.ts"
import { OAuthTokenApi } from "../identity/oauth/api.ts"
import { BrandingApi, BusinessFrontApi } from "../identity/business/front.api.ts"
import { BusinessDeskApi } from "../identity/business/desk.api.ts"
import { CustomFieldsDeskApi } from "../identity/custom-fields/desk.api.ts"
import { HealthApi } from "./health/api.ts"
import { LocationsDeskApi } from "../catalog/locations/desk.api.ts"
import { LocationsFrontApi } from "../catalog/locations/front.api.ts"
import { PeopleDeskApi } from "../identity/people/desk.api.ts"
import { PeopleFrontApi } from "../identity/people/front.api.ts"
import { WebhooksApi } from "../webhooks/api.ts"
import { ReportsApi } from "../../reports/api.ts"
import { AvailabilityDeskApi } from "../schedule/availability/desk.api.ts"
import { AvailabilityFrontApi } from "../schedule/availability/front.api.ts"
import { EligibilityDeskApi } from "../enrollment/eligibility/desk.api.ts"
import { EligibilityFrontApi } from "../enrollment/eligibility/front.api.ts"
import { EventOccurrencesDeskApi } from "../schedule/event-occurrences/desk.api.ts"
import { EventOccurrencesFrontApi } from "../schedule/event-occurrences/front.api.ts"
import { EventsDeskApi } from "../schedule/events/desk.api.ts"
import { EventsFrontApi } from "../schedule/events/front.api.ts"
import { ServicesDeskApi } from "../catalog/services/desk.api.ts"
import { ServicesFrontApi } from "../catalog/services/front.api.ts"
import { StaffMembersDeskApi } from "../catalog/staff-members/desk.api.ts"
import { StaffMembersFrontApi } from "../catalog/staff-members/front.api.ts"
import { BookingsDeskApi } from "../enrollment/bookings/desk.api.ts"
import { BookingsFrontApi } from "../enrollment/bookings/front.api.ts"
import { MakeUpsDeskApi } from "../enrollment/make-ups/desk.api.ts"
import { VisitsDeskApi } from "../enrollment/visits/desk.api.ts"
import { VisitsFrontApi } from "../enrollment/visits/front.api.ts"
import { NotesDeskApi } from "../enrollment/notes/desk.api.ts"
import { NotesFrontApi } from "../enrollment/notes/front.api.ts"
import { PunchesDeskApi } from "../billing/punches/desk.api.ts"
import { WaitlistsDeskApi } from "../enrollment/waitlists/desk.api.ts"
import { WaitlistsFrontApi } from "../enrollment/waitlists/front.api.ts"
import { WaiversDeskApi, WaiversFrontApi } from "../enrollment/waivers/api.ts"
import { PlanTermsFrontApi } from "../catalog/plan-terms/front.api.ts"
import { PackProductsDeskApi } from "../catalog/pack-products/desk.api.ts"
import { PlanProductsDeskApi } from "../catalog/plan-products/desk.api.ts"
import { PlanProductsFrontApi } from "../catalog/plan-products/front.api.ts"
import { RevenueCategoriesDeskApi } from "../catalog/revenue-categories/desk.api.ts"
import { SalesTaxesDeskApi } from "../catalog/sales-taxes/desk.api.ts"
import { PlansDeskApi } from "../billing/plans/desk.api.ts"
import { InvoicesDeskApi } from "../billing/invoices/desk.api.ts"
import { InvoicesFrontApi } from "../billing/invoices/front.api.ts"
import { PaymentsDeskApi, PaymentsFrontApi } from "../billing/invoices/payments.api.ts"
import { PlansFrontApi } from "../billing/plans/front.api.ts"
import { FormOfPaymentVaultingApi, FormsOfPaymentDeskApi, FormsOfPaymentFrontApi } from "../billing/forms-of-payment/api.ts"
import { PaymentConfigurationDeskApi, PaymentConfigurationFrontApi } from "../catalog/payment-configuration/api.ts"
import { ProcessorConnectDeskApi, ProcessorConnectFrontApi } from "../billing/processor-connect/api.ts"

/**
 * The whole HTTP contract. Conventions shared by every endpoint (host tenancy, `.json`
 * suffix, tokens, locale, rate limits, form bodies, error bodies) are applied by the request
 * pipeline (request-pipeline.ts) and the access middlewares (auth/access.ts).
 */
export const Api = apiOf(
  HealthApi,
  BusinessFrontApi,
  BrandingApi,
  BusinessDeskApi,
  LocationsFrontApi,
  LocationsDeskApi,
  CustomFieldsDeskApi,
  PeopleFrontApi,
  PeopleDeskApi,
  AccountApi,
  AccountPasswordsApi,
  OAuthTokenApi,
  WebhooksApi,
  ReportsApi,
  ServicesFrontApi,
  ServicesDeskApi,
  StaffMembersFrontApi,
  StaffMembersDeskApi,
  EventsFrontApi,
  EventsDeskApi,
  EventOccurrencesFrontApi,
  EventOccurrencesDeskApi,
  AvailabilityFrontApi,
  AvailabilityDeskApi,
  EligibilityFrontApi,
  EligibilityDeskApi,
  VisitsFrontApi,
  VisitsDeskApi,
  MakeUpsDeskApi,
  WaitlistsFrontApi,
  WaitlistsDeskApi,
  NotesFrontApi,
  NotesDeskApi,
  PunchesDeskApi,
  WaiversFrontApi,
  WaiversDeskApi,
  BookingsFrontApi,
  BookingsDeskApi,
  // Billing: plan terms
  PlanTermsFrontApi,
  // Billing: catalog
  PlanProductsFrontApi,
  PlanProductsDeskApi,
  PackProductsDeskApi,
  RevenueCategoriesDeskApi,
  SalesTaxesDeskApi,
  // Billing: person plans
  PlansFrontApi,
  PlansDeskApi,
  // Billing: invoices
  InvoicesFrontApi,
  InvoicesDeskApi,
  // Billing: forms of payment
  FormsOfPaymentFrontApi,
  FormsOfPaymentDeskApi,
  FormOfPaymentVaultingApi,
  PaymentConfigurationFrontApi,
  PaymentConfigurationDeskApi,
  ProcessorConnectFrontApi,
  ProcessorConnectDeskApi,
  // Billing: payments
  PaymentsFrontApi,
  PaymentsDeskApi
)
  .annotateMerge(
    OpenApi.annotations({
      title: "Studio Service Core API v2",
      version: "2",
      description: [
        "Business endpoints answer on the business host `{subdomain}.{BASE_DOMAIN}`; account endpoints on `{BASE_DOMAIN}`.",
        "Authenticate with `Authorization: Bearer <token>` or `?access_token=<token>`. Unauthenticated client-mode calls need `?client_id=`.",
        "Bodies are wrapped in the singular resource name, as JSON or Rails-style form fields. A `.json` suffix on any path is the same endpoint.",
        "Errors: `{\"errors\": [...]}` (translated per `X-FD-Locale`), authentication problems `{\"error\": \"...\"}`.",
        "Rate limits: 180 requests/minute per token, 360 per IP; `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` on every response."
      ].join("\n\n")
    })
  )
