import { Layer } from "effect"
import { LoggerLive } from "../platform/logger.ts"
import { TelemetryLive } from "../platform/telemetry.ts"
import { AccountsRepo } from "../identity/accounts/repo.ts"
import { AccountTokensRepo } from "../access/account-tokens.ts"
import { AccessTokensLive } from "../access/tokens.ts"
import { OAuthRepo } from "../identity/oauth/repo.ts"
import { SignInThrottle } from "../access/sign-in-throttle.ts"
import { ApplicationsLive } from "../access/applications.ts"
import { BusinessDirectoryLive } from "../access/tenant.ts"
import { BusinessRepo } from "../identity/business/repo.ts"
import { CustomFieldsRepo } from "../identity/custom-fields/repo.ts"
import { LocationsRepo } from "../catalog/locations/repo.ts"
import { PeopleRepo } from "../identity/people/repo.ts"
import { AppConfig, AppConfigLive } from "../platform/config.ts"
import { DatabaseUrlLive, SqlLive } from "../platform/database.ts"
import { CacheEventsLive } from "../platform/cache-events.ts"
import { WorkerHeartbeatLive } from "../platform/worker-heartbeat.ts"
import { RateLimiterLive } from "../platform/rate-limit-postgres.ts"
import { WebhooksRepo } from "../webhooks/repo.ts"
import { ReportsRepo } from "../../reports/repo.ts"
import { ReportStore } from "../../reports/store.ts"
import { AvailabilityRepo } from "../schedule/availability/repo.ts"
import { EligibilityRepo } from "../enrollment/eligibility/repo.ts"
import { EventOccurrencesRepo } from "../schedule/event-occurrences/repo.ts"
import { EventsRepo } from "../schedule/events/repo.ts"
import { ImportRepo } from "../tools/import/repo.ts"
import { ServicesRepo } from "../catalog/services/repo.ts"
import { StaffMembersRepo } from "../catalog/staff-members/repo.ts"
import { EnrollmentsLive } from "../enrollment/visits/enrollments-live.ts"
import { VisitsRepo } from "../enrollment/visits/repo.ts"
import { BookingsRepo } from "../enrollment/bookings/repo.ts"
import { OngoingEnrollmentsLive } from "../enrollment/bookings/ongoing.ts"
import { MakeUpsRepo } from "../enrollment/make-ups/repo.ts"
import { NotesRepo } from "../enrollment/notes/repo.ts"
import { WaitlistsRepo } from "../enrollment/waitlists/repo.ts"
import { WaiversRepo } from "../enrollment/waivers/repo.ts"
import { PackProductsRepo } from "../catalog/pack-products/repo.ts"
import { PlanProductsRepo } from "../catalog/plan-products/repo.ts"
import { RevenueCategoriesRepo } from "../catalog/revenue-categories/repo.ts"
import { SalesTaxesRepo } from "../catalog/sales-taxes/repo.ts"
import { PlansRepo } from "../billing/plans/repo.ts"
import { InvoicesRepo } from "../billing/invoices/repo.ts"
import { InvoiceRefsRepo } from "../billing/invoices/refs-repo.ts"
import { AccountBalancesLive } from "../billing/invoices/balances-live.ts"
import { BookingInvoicesLive } from "../billing/invoices/booking-invoices-live.ts"
import { NewClientPassesLive } from "../billing/plans/new-client-passes-live.ts"
import { PaymentsRepo } from "../billing/invoices/payments-repo.ts"
import { BillingRunsRepo } from "../billing/billing-runs/repo.ts"
import { StaffPayRepo } from "../billing/staff-pay/repo.ts"
import { InvoiceItemsRepo } from "../billing/invoices/items-repo.ts"
import { FutureVisitsLive } from "../enrollment/visits/future-visits-live.ts"
import { PlanTermsRepo } from "../catalog/plan-terms/repo.ts"
import { SigningProviderLive } from "../platform/signing/live.ts"
import { SandboxEnvelopes } from "../platform/signing/sandbox.ts"
import { PunchesRepo } from "../billing/punches/repo.ts"
import { FormsOfPaymentRepo } from "../billing/forms-of-payment/repo.ts"
import { PaymentConfigurationRepo } from "../catalog/payment-configuration/repo.ts"
import { PaymentGatewayLive } from "../platform/payments/live.ts"
import { SandboxGatewayStore } from "../platform/payments/sandbox-store.ts"
import { CommerceLive, MembershipsLive, VisitPaymentsLive } from "../billing/punches/ports-live.ts"
import { AttendanceCompletedLive } from "../billing/staff-pay/attendance-live.ts"

/**
 * The one layer graph. Infrastructure is provided here and nowhere else:
 * config → database URL (embedded PostgreSQL when DATABASE_URL is unset) → SQL client →
 * repos and auth services. The server (src/app/http.ts) and the worker (workers/runner.ts) are
 * built on top by src/main.ts and the CLI.
 */
export const DatabaseLive = SqlLive.pipe(Layer.provideMerge(DatabaseUrlLive))

/** Billing's answers to the ports of the schedule, visits, eligibility, services, people and invoices. */
const BillingPortsLive = Layer.mergeAll(
  VisitPaymentsLive,
  // The schedule's completed attendance: staff pay enqueues the service pays.
  AttendanceCompletedLive,
  CommerceLive.pipe(Layer.provide(FormsOfPaymentRepo.layer)),
  MembershipsLive,
  // People's account credit balances (include_balances), from the payments ledger.
  AccountBalancesLive.pipe(Layer.provide(PaymentsRepo.layer)),
  // What an uncompleted booking deleted takes with it: its invoices and the plans they sold.
  BookingInvoicesLive.pipe(Layer.provide(Layer.merge(InvoicesRepo.layer, PlansRepo.layer))),
  // The complimentary passes a new person gets (people's port, answered by plans).
  NewClientPassesLive.pipe(Layer.provide(PlansRepo.layer))
).pipe(
  Layer.provideMerge(PunchesRepo.layer),
  // Punches keep the plans' exhaustion, a write of plans' own repo.
  Layer.provide(Layer.merge(WebhooksRepo.layer, PlansRepo.layer))
)

const RepositoriesLive = Layer.mergeAll(
  LocationsRepo.layer,
  BusinessRepo.layer,
  CustomFieldsRepo.layer,
  PeopleRepo.layer,
  AccountsRepo.layer,
  AccountTokensRepo.layer,
  OAuthRepo.layer,
  SignInThrottle.layer,
  WebhooksRepo.layer,
  // Its scope cache is emptied by the same events as the request caches (one listener per process).
  ReportsRepo.layer.pipe(Layer.provide(CacheEventsLive)),
  // The schedule. Eligibility's Commerce (plans, cards) and services' Memberships are ports
  // billing answers (BillingPortsLive, provided to the whole set).
  ServicesRepo.layer,
  StaffMembersRepo.layer,
  EventsRepo.layer,
  EventOccurrencesRepo.layer,
  AvailabilityRepo.layer,
  EligibilityRepo.layer,
  ImportRepo.layer,
  // Enrollment. The schedule's required ports: what enrollment knows (visits/enrollments-live.ts)
  // and what it does when sessions are added (bookings/ongoing.ts).
  EnrollmentsLive.pipe(Layer.provideMerge(VisitsRepo.layer)),
  OngoingEnrollmentsLive.pipe(Layer.provide(Layer.mergeAll(BookingsRepo.layer, VisitsRepo.layer, WebhooksRepo.layer))),
  BookingsRepo.layer,
  MakeUpsRepo.layer,
  WaitlistsRepo.layer,
  NotesRepo.layer,
  WaiversRepo.layer,
  // Billing: catalog
  PlanProductsRepo.layer,
  PackProductsRepo.layer,
  RevenueCategoriesRepo.layer,
  SalesTaxesRepo.layer,
  // Billing: person plans
  PlansRepo.layer,
  // Billing: invoices
  InvoicesRepo.layer,
  InvoiceRefsRepo.layer,
  InvoiceItemsRepo.layer,
  // Ports a lower domain declares and a higher one answers: people asks visits.
  FutureVisitsLive.pipe(Layer.provide(VisitsRepo.layer)),
  // Billing: plan terms. Document terms are signed with the configured provider (SIGNING_PROVIDER);
  // the sandbox's envelopes also serve its signing page.
  PlanTermsRepo.layer,
  SigningProviderLive.pipe(Layer.provideMerge(SandboxEnvelopes.layer)),
  // Billing: forms of payment. Cards are vaulted and charged by the configured gateway; the
  // sandbox's store also serves its card form.
  FormsOfPaymentRepo.layer,
  PaymentConfigurationRepo.layer,
  PaymentGatewayLive.pipe(Layer.provideMerge(SandboxGatewayStore.layer)),
  // Billing: payments, refunds and account credit
  PaymentsRepo.layer,
  // Billing: automatic membership billing
  BillingRunsRepo.layer,
  // Staff pay
  StaffPayRepo.layer
).pipe(
  // Ports lower domains declare and billing answers: visits' VisitPayments (auto-pay),
  // eligibility's Commerce, services' Memberships; kept in the output for the handlers.
  Layer.provideMerge(BillingPortsLive)
)

/** The caches of every request, emptied when PostgreSQL says what they hold changed (any process's write). */
const AuthServicesLive = Layer.mergeAll(BusinessDirectoryLive, AccessTokensLive, ApplicationsLive).pipe(
  Layer.provide(CacheEventsLive)
)

/** Everything the HTTP handlers and the jobs use, on an already configured database. */
export const ServicesLive = Layer.mergeAll(RepositoriesLive, AuthServicesLive, RateLimiterLive, ReportStore.layer, WorkerHeartbeatLive)

/**
 * OTLP export (src/platform/telemetry.ts) sits just above the console logger, so its logger is
 * added beside the console's, and below everything else, so every service built after it (SQL
 * client, server, worker) runs with its tracer. Without OTEL_EXPORTER_OTLP_ENDPOINT it is empty.
 */
export const BaseLive = (config: Layer.Layer<AppConfig> = AppConfigLive) =>
  ServicesLive.pipe(
    Layer.provideMerge(DatabaseLive),
    Layer.provideMerge(TelemetryLive),
    Layer.provideMerge(LoggerLive),
    Layer.provideMerge(config)
  )
