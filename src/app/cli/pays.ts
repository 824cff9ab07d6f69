import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { SqlClient } from "effect/sql"
import { migrateDatabase } from "../../platform/startup.ts"
import { PAY_STATES } from "../../billing/staff-pay/model.ts"
import { addPay, businessOf, listPays, reviewPay } from "../../billing/staff-pay/service.ts"
import { findBusiness, printJson, userError, withServices } from "./support.ts"

/**
 * `pays list|review|add`: the spec has no Core API for pays, so an operator lists them, reviews
 * pending ones (approve or deny, once) and adds ad-hoc and tip pays here. Output is JSON.
 */

const businessFlag = Flag.optional(Flag.String("business")).pipe(Flag.withDescription("Subdomain of the business (default: all, or the id's own)"))

/** The business named by --business, else the one the id belongs to. */
const resolveBusiness = (business: Option.Option<string>, table: "pays" | "staff_members" | "invoices", id: number, what: string) =>
  Option.match(business, {
    onSome: findBusiness,
    onNone: () =>
      Effect.flatMap(businessOf(table, id), (found) => (found === undefined ? Effect.fail(userError(`no ${what} ${id}`)) : Effect.succeed(found)))
  })

const list = Command.make(
  "list",
  {
    business: businessFlag,
    state: Flag.optional(Flag.Literals("state", PAY_STATES)).pipe(Flag.withDescription("Only pays in this state")),
    period: Flag.optional(Flag.String("period")).pipe(Flag.withDescription("Only pays whose pay period contains this date (YYYY-MM-DD)"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const period = Option.getOrUndefined(flags.period)
        if (period !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(period) || (period !== undefined && Number.isNaN(Date.parse(`${period}T00:00:00Z`)))) {
          return yield* Effect.fail(userError(`--period: "${period}" is not a date (YYYY-MM-DD)`))
        }
        const businessId = Option.isSome(flags.business) ? yield* findBusiness(flags.business.value) : null
        yield* printJson({ pays: yield* listPays(businessId, { state: Option.getOrUndefined(flags.state), period }) })
      })
    )
).pipe(Command.withDescription("List pays (JSON), by pay period"))

const review = Command.make(
  "review",
  {
    id: Argument.Int("id").pipe(Argument.withDescription("Id of the pay")),
    approve: Flag.Boolean("approve").pipe(Flag.withDefault(false), Flag.withDescription("Approve the pay")),
    deny: Flag.Boolean("deny").pipe(Flag.withDefault(false), Flag.withDescription("Deny the pay")),
    by: Flag.Int("by").pipe(Flag.withDescription("Id of the reviewing staff member")),
    business: businessFlag
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        if (flags.approve === flags.deny) return yield* Effect.fail(userError("give exactly one of --approve and --deny"))
        yield* migrateDatabase
        const businessId = yield* resolveBusiness(flags.business, "pays", flags.id, "pay")
        const sql = yield* SqlClient.SqlClient
        const pay = yield* sql
          .withTransaction(reviewPay(businessId, flags.id, flags.approve ? "approved" : "denied", flags.by))
          .pipe(Effect.catchTag("SqlError", Effect.die), Effect.mapError((problem) => userError(problem.message)))
        yield* printJson({ pays: [pay] })
      })
    )
).pipe(Command.withDescription("Approve or deny a pending pay, once (prints it as JSON)"))

const add = Command.make(
  "add",
  {
    staff: Flag.optional(Flag.Int("staff")).pipe(Flag.withDescription("Id of the staff member paid (a tip: default the invoice's tip recipient)")),
    amountCents: Flag.Int("amount-cents").pipe(Flag.withDescription("The amount in cents (negative for a deduction)")),
    description: Flag.String("description").pipe(Flag.withDescription("What the pay is for")),
    type: Flag.Literals("type", ["adhoc", "tip"]).pipe(Flag.withDefault("adhoc"), Flag.withDescription("adhoc (default) or tip")),
    invoice: Flag.optional(Flag.Int("invoice")).pipe(Flag.withDescription("The closed invoice a tip is for")),
    business: businessFlag
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const staff = Option.getOrUndefined(flags.staff)
        const invoice = Option.getOrUndefined(flags.invoice)
        if (flags.type === "adhoc" && invoice !== undefined) return yield* Effect.fail(userError("--invoice is for tip pays (--type tip)"))
        if (flags.type === "adhoc" && staff === undefined) return yield* Effect.fail(userError("--staff is required"))
        if (flags.type === "tip" && invoice === undefined) return yield* Effect.fail(userError("--invoice is required for a tip pay"))
        // The business: --business, else the staff member's, else (a tip) the invoice's.
        const businessId = staff !== undefined
          ? yield* resolveBusiness(flags.business, "staff_members", staff, "staff member")
          : yield* resolveBusiness(flags.business, "invoices", invoice!, "invoice")
        const sql = yield* SqlClient.SqlClient
        const pay = yield* sql
          .withTransaction(addPay(businessId, { type: flags.type, staffMemberId: staff, amountCents: flags.amountCents, description: flags.description, invoiceId: invoice }))
          .pipe(Effect.catchTag("SqlError", Effect.die), Effect.mapError((problem) => userError(problem.message)))
        yield* printJson({ pays: [pay] })
      })
    )
).pipe(Command.withDescription("Add an ad-hoc or tip pay, pending review (prints it as JSON)"))

export const pays = Command.make("pays").pipe(
  Command.withDescription("List, review and add staff pays"),
  Command.withSubcommands([list, review, add])
)
