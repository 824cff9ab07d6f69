import { OpenApi } from "effect/http-api"
import { apiOf } from "./shared/http-api.ts"
import { AccountApi, AccountPasswordsApi } from "./accounts/api.ts"
import { OAuthTokenApi } from "./oauth/api.ts"
import { BrandingApi, BusinessFrontApi } from "./business/front.api.ts"
import { BusinessDeskApi } from "./business/desk.api.ts"
import { CustomFieldsDeskApi } from "./custom-fields/desk.api.ts"
import { HealthApi } from "./health/api.ts"
import { LocationsDeskApi } from "./locations/desk.api.ts"
import { LocationsFrontApi } from "./locations/front.api.ts"
import { PeopleDeskApi } from "./people/desk.api.ts"
import { PeopleFrontApi } from "./people/front.api.ts"
import { WebhooksApi } from "./webhooks/api.ts"
import { ReportsApi } from "../reports/api.ts"
import { AvailabilityDeskApi } from "./availability/desk.api.ts"
import { AvailabilityFrontApi } from "./availability/front.api.ts"
import { EligibilityDeskApi } from "./eligibility/desk.api.ts"
import { EligibilityFrontApi } from "./eligibility/front.api.ts"
import { EventOccurrencesDeskApi } from "./event-occurrences/desk.api.ts"
import { EventOccurrencesFrontApi } from "./event-occurrences/front.api.ts"
import { EventsDeskApi } from "./events/desk.api.ts"
import { EventsFrontApi } from "./events/front.api.ts"
import { ServicesDeskApi } from "./services/desk.api.ts"
import { ServicesFrontApi } from "./services/front.api.ts"
import { StaffMembersDeskApi } from "./staff-members/desk.api.ts"
import { StaffMembersFrontApi } from "./staff-members/front.api.ts"
import { BookingsDeskApi } from "./bookings/desk.api.ts"
import { BookingsFrontApi } from "./bookings/front.api.ts"
import { MakeUpsDeskApi } from "./make-ups/desk.api.ts"
import { VisitsDeskApi } from "./visits/desk.api.ts"
import { VisitsFrontApi } from "./visits/front.api.ts"
import { NotesDeskApi } from "./notes/desk.api.ts"
import { NotesFrontApi } from "./notes/front.api.ts"
import { PunchesDeskApi } from "./punches/desk.api.ts"
import { WaitlistsDeskApi } from "./waitlists/desk.api.ts"
import { WaitlistsFrontApi } from "./waitlists/front.api.ts"
import { WaiversDeskApi, WaiversFrontApi } from "./waivers/api.ts"
import { PlanTermsFrontApi } from "./plan-terms/front.api.ts"
import { PackProductsDeskApi } from "./pack-products/desk.api.ts"
import { PlanProductsDeskApi } from "./plan-products/desk.api.ts"
import { PlanProductsFrontApi } from "./plan-products/front.api.ts"
import { RevenueCategoriesDeskApi } from "./revenue-categories/desk.api.ts"
import { SalesTaxesDeskApi } from "./sales-taxes/desk.api.ts"
import { PlansDeskApi } from "./plans/desk.api.ts"
import { InvoicesDeskApi } from "./invoices/desk.api.ts"
import { InvoicesFrontApi } from "./invoices/front.api.ts"
import { PaymentsDeskApi, PaymentsFrontApi } from "./payments/api.ts"
import { PlansFrontApi } from "./plans/front.api.ts"
import { FormOfPaymentVaultingApi, FormsOfPaymentDeskApi, FormsOfPaymentFrontApi } from "./forms-of-payment/api.ts"
import { PaymentConfigurationDeskApi, PaymentConfigurationFrontApi } from "./payment-configuration/api.ts"
import { ProcessorConnectDeskApi, ProcessorConnectFrontApi } from "./processor-connect/api.ts"

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
