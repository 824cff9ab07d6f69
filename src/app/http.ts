import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { createServer } from "node:http"
import { CanonicalHeadersResponse } from "../platform/canonical-headers.ts"
import { explainServeError } from "../platform/listen-failure.ts"
import { Api } from "./api.ts"
import { AccountLive, AccountPasswordsLive } from "../identity/accounts/handlers.ts"
import { AccessLive } from "../access/access.ts"
import { OAuthRoutesLive } from "../identity/oauth/routes.ts"
import { OAuthTokenLive } from "../identity/oauth/token.ts"
import { SignInRoutesLive } from "../identity/oauth/sign-in.ts"
import { BrandingLive, BusinessDeskLive, BusinessFrontLive } from "../identity/business/handlers.ts"
import { CustomFieldsDeskLive } from "../identity/custom-fields/handlers.ts"
import { HealthLive } from "./health/handlers.ts"
import { LocationsDeskLive, LocationsFrontLive } from "../catalog/locations/handlers.ts"
import { PeopleDeskLive, PeopleFrontLive } from "../identity/people/handlers.ts"
import { AppConfig } from "../platform/config.ts"
import { serveApp, withBuildContext } from "../platform/http-serve.ts"
import { DocsPageLive } from "./docs-page.ts"
import { RequestPipeline } from "./request-pipeline.ts"
import { RouteTemplate } from "../platform/route-template.ts"
import { WebhooksLive } from "../webhooks/handlers.ts"
import { ReportsLive } from "../../reports/handlers.ts"
import { PlaygroundRoutesLive } from "../../reports/playground/routes.ts"
import { AvailabilityDeskLive, AvailabilityFrontLive } from "../schedule/availability/handlers.ts"
import { EligibilityDeskLive, EligibilityFrontLive } from "../enrollment/eligibility/handlers.ts"
import { EventOccurrencesDeskLive, EventOccurrencesFrontLive } from "../schedule/event-occurrences/handlers.ts"
import { EventsDeskLive, EventsFrontLive } from "../schedule/events/handlers.ts"
import { ServicesDeskLive, ServicesFrontLive } from "../catalog/services/handlers.ts"
import { StaffMembersDeskLive, StaffMembersFrontLive } from "../catalog/staff-members/handlers.ts"
import { BookingsDeskLive, BookingsFrontLive } from "../enrollment/bookings/handlers.ts"
import { MakeUpsDeskLive } from "../enrollment/make-ups/handlers.ts"
import { VisitsDeskLive, VisitsFrontLive } from "../enrollment/visits/handlers.ts"
import { NotesDeskLive, NotesFrontLive } from "../enrollment/notes/handlers.ts"
import { PunchesDeskLive } from "../billing/punches/handlers.ts"
import { WaitlistsDeskLive, WaitlistsFrontLive } from "../enrollment/waitlists/handlers.ts"
import { WaiversDeskLive, WaiversFrontLive } from "../enrollment/waivers/handlers.ts"
import { PlanTermsFrontLive } from "../catalog/plan-terms/handlers.ts"
import { SandboxSigningRoutesLive } from "../platform/signing/sandbox-routes.ts"
import { PackProductsDeskLive } from "../catalog/pack-products/handlers.ts"
import { PlanProductsDeskLive, PlanProductsFrontLive } from "../catalog/plan-products/handlers.ts"
import { RevenueCategoriesDeskLive } from "../catalog/revenue-categories/handlers.ts"
import { SalesTaxesDeskLive } from "../catalog/sales-taxes/handlers.ts"
import { PlansDeskLive, PlansFrontLive } from "../billing/plans/handlers.ts"
import { InvoicesDeskLive, InvoicesFrontLive } from "../billing/invoices/handlers.ts"
import { PaymentsDeskLive, PaymentsFrontLive } from "../billing/invoices/payments-handlers.ts"
import { FormOfPaymentVaultingLive, FormsOfPaymentDeskLive, FormsOfPaymentFrontLive } from "../billing/forms-of-payment/handlers.ts"
import { PaymentConfigurationDeskLive, PaymentConfigurationFrontLive } from "../catalog/payment-configuration/handlers.ts"
import { ProcessorConnectDeskLive, ProcessorConnectFrontLive } from "../billing/processor-connect/handlers.ts"
import { SandboxGatewayRoutesLive } from "../platform/payments/sandbox-routes.ts"

/** The schedule's handler groups. */
const ScheduleHandlersLive = Layer.mergeAll(
  ServicesFrontLive,
  ServicesDeskLive,
  StaffMembersFrontLive,
  StaffMembersDeskLive,
  EventsFrontLive,
  EventsDeskLive,
  EventOccurrencesFrontLive,
  EventOccurrencesDeskLive,
  AvailabilityFrontLive,
  AvailabilityDeskLive,
  EligibilityFrontLive,
  EligibilityDeskLive
)

/** Every handler group of `Api`: the only place handler layers are provided. */
const HandlersLive = Layer.mergeAll(
  HealthLive,
  BusinessFrontLive,
  BrandingLive,
  BusinessDeskLive,
  LocationsFrontLive,
  LocationsDeskLive,
  CustomFieldsDeskLive,
  PeopleFrontLive,
  PeopleDeskLive,
  AccountLive,
  AccountPasswordsLive,
  OAuthTokenLive,
  WebhooksLive,
  ReportsLive,
  ScheduleHandlersLive,
  // Bookings and leases
  BookingsFrontLive,
  BookingsDeskLive,
  // Visits and make-ups
  VisitsFrontLive,
  VisitsDeskLive,
  MakeUpsDeskLive,
  // Waitlists, notes and waivers
  WaitlistsFrontLive,
  WaitlistsDeskLive,
  NotesFrontLive,
  NotesDeskLive,
  PunchesDeskLive,
  WaiversFrontLive,
  WaiversDeskLive,
  // Billing: plan terms
  PlanTermsFrontLive,
  // Billing: catalog
  PlanProductsFrontLive,
  PlanProductsDeskLive,
  PackProductsDeskLive,
  RevenueCategoriesDeskLive,
  SalesTaxesDeskLive,
  // Billing: person plans
  PlansFrontLive,
  PlansDeskLive,
  // Billing: invoices
  InvoicesFrontLive,
  InvoicesDeskLive,
  // Billing: forms of payment
  FormsOfPaymentFrontLive,
  FormsOfPaymentDeskLive,
  FormOfPaymentVaultingLive,
  PaymentConfigurationFrontLive,
  PaymentConfigurationDeskLive,
  ProcessorConnectFrontLive,
  ProcessorConnectDeskLive,
  // Billing: payments
  PaymentsFrontLive,
  PaymentsDeskLive
)

/**
 * The routes: the API, its OpenAPI document and docs page, behind the request pipeline.
 * Routes that are not HttpApi groups go inside `withBuildContext` (src/platform/http-serve.ts).
 */
export const HttpAppLive = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: "/api/openapi.json" }).pipe(Layer.provide(HandlersLive)),
  // Plain routes: the docs page, OAuth and sign-in pages, the reports playground, and the
  // sandboxes' pages (the signing provider's, for document terms of plans; the payment gateway's
  // card form and setup intents).
  withBuildContext(
    Layer.mergeAll(DocsPageLive, OAuthRoutesLive, SignInRoutesLive, PlaygroundRoutesLive, SandboxSigningRoutesLive, SandboxGatewayRoutesLive)
  ),
  RequestPipeline
).pipe(Layer.provide(AccessLive), Layer.provide(RouteTemplate.layer))

/**
 * The HTTP server on `PORT`, with `routes` beside the app's (`npm start` adds the demo's
 * callback page, as it seeds the demo); closing the layer stops accepting and drains open requests.
 */
/**
 * Node's HTTP server on `PORT` (response header names canonical: platform/canonical-headers.ts);
 * a port it cannot listen on fails with a message naming the fix (platform/listen-failure.ts).
 */
const listening = (config: { readonly host: string; readonly port: number }) => {
  const server = NodeHttpServer.layer(() => createServer({ ServerResponse: CanonicalHeadersResponse }), { port: config.port, host: config.host })
  // Same outputs: the replacement only fails (catchTag types a failing layer's outputs as `never`).
  return server.pipe(
    Layer.catchTag("ServeError", (error) => Layer.effectDiscard(Effect.fail(explainServeError(error, config))))
  ) as unknown as typeof server
}

export const httpServerWith = <E, R>(routes: Layer.Layer<never, E, R>) =>
  Layer.unwrap(
    AppConfig.useSync((config) =>
      serveApp(Layer.merge(HttpAppLive, withBuildContext(routes).pipe(Layer.provide(RouteTemplate.layer)))).pipe(
        Layer.provideMerge(listening(config))
      ))
  )

export const HttpServerLive = httpServerWith(Layer.empty)
