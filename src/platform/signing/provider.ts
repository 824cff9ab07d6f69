import { Context, Data, Effect } from "effect"

/**
 * A document-signing provider: where a person signs a document (plan terms of acceptance type
 * `document`). Shaped after the embedded-signing flow of hosted providers:
 * - `createEnvelope` files the document for one signer, once; the caller keeps the envelope id.
 * - `signingUrl` opens a signing session for that envelope: the page the signer's browser goes
 *   to, which sends the browser on to `returnUrl` when the signer signed or declined. Sessions
 *   are short-lived, so a URL is asked for each time one is shown.
 * - `envelopeStatus` is the provider's word on the outcome; the return to `returnUrl` is only a
 *   hint to look, never proof.
 * Any failure to reach the provider is `SigningUnavailable`: callers degrade (an empty signing
 * URL, a 422 asking to try later), never answer 500.
 */
export type EnvelopeStatus = "pending" | "signed" | "declined"

export class SigningUnavailable extends Data.TaggedError("SigningUnavailable")<{ readonly reason: string }> {}

export interface EnvelopeInput {
  readonly businessId: number
  /** What the envelope is for, in the caller's terms (`plan_terms:12`). */
  readonly reference: string
  readonly signerName: string
  readonly signerEmail: string | null
  readonly documentText: string
}

export interface SigningProviderShape {
  readonly createEnvelope: (input: EnvelopeInput) => Effect.Effect<{ readonly documentId: string }, SigningUnavailable>
  readonly signingUrl: (input: {
    readonly businessId: number
    readonly documentId: string
    /** Absolute; where the browser goes once the signer signed or declined. */
    readonly returnUrl: string
  }) => Effect.Effect<string, SigningUnavailable>
  readonly envelopeStatus: (input: { readonly businessId: number; readonly documentId: string }) => Effect.Effect<EnvelopeStatus, SigningUnavailable>
}

export class SigningProvider extends Context.Service<SigningProvider, SigningProviderShape>()("studio/SigningProvider") {}
