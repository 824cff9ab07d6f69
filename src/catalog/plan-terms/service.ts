import { Clock, Effect } from "effect"
import { hash, randomBytes } from "node:crypto"
import { CurrentBusiness } from "../../access/tenant.ts"
import { clientReach } from "../../identity/people/client-reach.ts"
import { SigningProvider } from "../../platform/signing/provider.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { type PlanTermsRow, toPlanTermsWire } from "./model.ts"
import { PlanTermsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { PlanTermsRefusals } from "./refusals.ts"

/**
 * Plan terms in client mode (spec: Plan terms). Only the payer (the terms' payer_person_id is
 * the token's own person) sees them: anyone else, a guardian of the payer included, gets the
 * same 404 as for an unknown plan, so a plan's terms reveal nothing to others.
 */
const findTerms = Effect.fn("PlanTerms.find")(function* (planId: number, termsId: number | undefined) {
  yield* privateResponse
  const business = yield* CurrentBusiness
  const reach = yield* clientReach
  const row = yield* (yield* PlanTermsRepo).ofPlan({ businessId: business.id, planId })
  if (!row || row.payer_person_id !== reach.selfId || (termsId !== undefined && row.id !== termsId)) {
    return yield* termsId === undefined
      ? PlanTermsRefusals.planTermsNone.fail({ plan_id: planId })
      : PlanTermsRefusals.planTermsNotFound.fail({ id: termsId })
  }
  return row
})

/**
 * How long a completion value lives: as long as the sandbox's signing session (an hour), so a
 * payer who reads the document through is still let back in.
 */
export const COMPLETION_LIFETIME_MS = 60 * 60 * 1000

const hashCompletion = (value: string): Buffer => hash("sha256", value, "buffer")

/**
 * Where the provider sends the browser after signing: this terms' `complete` with a one-time
 * `completion` value. The browser carries no Authorization header, and the address
 * passes through the provider and the browser's history: it used to carry the payer's own
 * access token, which never expires. The value opens this terms' `complete` once, for an hour,
 * and nothing else; only its hash is stored.
 */
const returnUrl = Effect.fn("PlanTerms.returnUrl")(function* (row: PlanTermsRow) {
  const context = yield* RequestContext
  const business = yield* CurrentBusiness
  const value = randomBytes(32).toString("base64url")
  const now = yield* Clock.currentTimeMillis
  yield* inTransaction(
    (yield* PlanTermsRepo).insertCompletion({
      businessId: business.id,
      id: row.id,
      valueHash: hashCompletion(value),
      now: new Date(now),
      expiresAt: new Date(now + COMPLETION_LIFETIME_MS)
    })
  )
  return `${context.origin}/api/v2/front/plans/${row.plan_id}/plan_terms/${row.id}/complete?completion=${value}`
})

/**
 * The terms a browser comes back to with a completion value: the value must be live and minted
 * for these very terms, and is used up here, whatever the provider's verdict then says (a new
 * look at the terms gives a new one). The value stands for the payer, whose look minted it.
 */
const termsOfCompletion = Effect.fn("PlanTerms.ofCompletion")(function* (planId: number, termsId: number, completion: string) {
  yield* privateResponse
  const business = yield* CurrentBusiness
  const repo = yield* PlanTermsRepo
  const now = (yield* currentTime)
  const claimed = yield* inTransaction(repo.claimCompletion({ businessId: business.id, id: termsId, valueHash: hashCompletion(completion), now }))
  if (!claimed) return yield* PlanTermsRefusals.planTermsCompletionInvalid.fail()
  const row = yield* repo.ofPlan({ businessId: business.id, planId })
  if (!row || row.id !== termsId) return yield* PlanTermsRefusals.planTermsNotFound.fail({ id: termsId })
  return row
})

/**
 * A signing address for open document terms: the envelope is filed on the first look and kept
 * (plan_terms.document_id); each look opens a new short-lived signing session on it. Empty when
 * the provider cannot be reached, or nothing is left to sign.
 */
const signingUrlOf = Effect.fn("PlanTerms.signingUrl")(function* (row: PlanTermsRow) {
  if (row.acceptance_type !== "document") return null
  if (row.accepted_at !== null || row.declined_at !== null) return ""
  const business = yield* CurrentBusiness
  const provider = yield* SigningProvider
  const repo = yield* PlanTermsRepo
  return yield* Effect.gen(function* () {
    let documentId = row.document_id
    if (documentId === null) {
      const envelope = yield* provider.createEnvelope({
        businessId: business.id,
        reference: `plan_terms:${row.id}`,
        signerName: row.payer_name,
        signerEmail: row.payer_email,
        documentText: row.terms
      })
      documentId = (yield* repo.attachDocument({ businessId: business.id, id: row.id, documentId: envelope.documentId, now: yield* currentTime }))
        .document_id
    }
    return yield* provider.signingUrl({ businessId: business.id, documentId, returnUrl: yield* returnUrl(row) })
  }).pipe(Effect.catchTag("SigningUnavailable", () => Effect.succeed("")))
})

const answer = Effect.fn("PlanTerms.answer")(function* (row: PlanTermsRow) {
  return { plan_terms: [toPlanTermsWire(row, yield* signingUrlOf(row))] }
})

export const getPlanTerms = Effect.fn("PlanTerms.get")(function* (planId: number, termsId?: number) {
  return yield* answer(yield* findTerms(planId, termsId))
})

/**
 * Marks the terms accepted, for the payer's token or a completion value (`termsOfCompletion`).
 * Checkbox terms: accepted by this call. Document terms: the
 * provider's verdict decides (the browser arriving here proves nothing): signed → accepted,
 * 200; declined → recorded, 422; not yet signed (or never opened) → 422, nothing written;
 * provider unreachable → 422, try again. Accepting twice answers the first acceptance.
 */
export const completePlanTerms = Effect.fn("PlanTerms.complete")(function* (planId: number, termsId: number, completion?: string) {
  const business = yield* CurrentBusiness
  const repo = yield* PlanTermsRepo
  // A browser sent back by the provider brings a completion value; an app brings the payer's token.
  const row = completion !== undefined ? yield* termsOfCompletion(planId, termsId, completion) : yield* findTerms(planId, termsId)
  const now = (yield* currentTime)
  const reread = Effect.flatMap(repo.ofPlan({ businessId: business.id, planId }), (found) => answer(found!))
  if (row.accepted_at !== null) return yield* answer(row)
  if (row.declined_at !== null) return yield* PlanTermsRefusals.planTermsDeclined.fail()
  if (row.acceptance_type === "checkbox") {
    yield* inTransaction(repo.accept({ businessId: business.id, id: row.id, now }))
    return yield* reread
  }
  if (row.document_id === null) return yield* PlanTermsRefusals.planTermsNotSigned.fail()
  const status = yield* (yield* SigningProvider).envelopeStatus({ businessId: business.id, documentId: row.document_id }).pipe(
    Effect.catchTag("SigningUnavailable", () => PlanTermsRefusals.planTermsSigningUnavailable.fail())
  )
  if (status === "pending") return yield* PlanTermsRefusals.planTermsNotSigned.fail()
  if (status === "declined") {
    yield* inTransaction(repo.decline({ businessId: business.id, id: row.id, now }))
    return yield* PlanTermsRefusals.planTermsDeclined.fail()
  }
  yield* inTransaction(repo.accept({ businessId: business.id, id: row.id, now }))
  return yield* reread
})
