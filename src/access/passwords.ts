import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

/**
 * Passwords hashed with scrypt (memory-hard): `scrypt$N$r$p$salt$hash`, base64url parts.
 * N=2^15, r=8 uses 32 MiB per hash, the OWASP-recommended floor.
 */
const N = 2 ** 15
const R = 8
const P = 1
const KEY_LENGTH = 32
const MAX_MEMORY = 64 * 1024 * 1024

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key)
    )
  )

export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(16)
  const key = await derive(password, salt, N, R, P)
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$")
}

export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const [scheme, n, r, p, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false
  const expected = Buffer.from(hash, "base64url")
  const key = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p))
  return key.length === expected.length && timingSafeEqual(key, expected)
}
