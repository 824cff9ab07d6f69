import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a secret is `whsec_` and the
 * base64 of 32 random bytes; each attempt sends `webhook-id` (the event's msg_ id, the same on
 * every attempt), `webhook-timestamp` (seconds, the attempt's own time) and `webhook-signature`
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, space-separated when a rotated-out secret
 * still signs beside the new one.
 *
 * Secrets are stored AES-256-GCM encrypted under the deployment's key, so the plain secret
 * lives only in the worker's memory while it signs and in the one answer that hands it out.
 */

const SECRET_PREFIX = "whsec_"

export const generateSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`

const secretKey = (secret: string): Buffer => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")

/** `msg_` and 32 hex digits: unique per event, safe in the signed `id.timestamp.body` string. */
export const generateMessageId = (): string => `msg_${randomBytes(16).toString("hex")}`

export const signatureOf = (secret: string, messageId: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", secretKey(secret)).update(`${messageId}.${timestamp}.${body}`).digest("base64")}`

/** The three Standard Webhooks headers of one attempt; every secret given signs (rotation). */
export const standardHeaders = (
  secrets: ReadonlyArray<string>,
  messageId: string,
  timestamp: number,
  body: string
): Record<string, string> => ({
  "webhook-id": messageId,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": secrets.map((secret) => signatureOf(secret, messageId, timestamp, body)).join(" ")
})

// ---------------------------------------------------------------------------------------------
// Encryption at rest: iv (12 bytes) · tag (16 bytes) · ciphertext

export const encryptSecret = (key: Buffer, secret: string): Buffer => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext])
}

export const decryptSecret = (key: Buffer, sealed: Uint8Array): string => {
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12))
  decipher.setAuthTag(bytes.subarray(12, 28))
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8")
}
