import * as dns from "node:dns"
import { isIP } from "node:net"

/**
 * Where notifications may go. A target is an absolute http(s) URL without credentials; its
 * host must resolve only to public addresses: loopback, private, link-local, shared (CGNAT),
 * multicast, documentation and reserved ranges are refused, unless the operator allows them
 * (WEBHOOKS_ALLOW_PRIVATE_TARGETS, for tests and local development). The check runs when a
 * subscription is made and again inside every connection's DNS lookup, so a name that
 * resolves to a public address at creation and to an internal one later (DNS rebinding)
 * still cannot reach the internal network.
 */

export const MAX_TARGET_LENGTH = 2048

export type TargetProblem = "invalid" | "scheme" | "credentials" | "unresolvable" | "private"

/** The target as a URL, or why it cannot be one (before any DNS). */
export const parseTarget = (target: string): { readonly url: URL } | { readonly problem: TargetProblem } => {
  const trimmed = target.trim()
  if (trimmed.length === 0 || trimmed.length > MAX_TARGET_LENGTH) return { problem: "invalid" }
  const url = URL.parse(trimmed)
  if (url === null) return { problem: "invalid" }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { problem: "scheme" }
  if (url.hostname === "") return { problem: "invalid" }
  if (url.username !== "" || url.password !== "") return { problem: "credentials" }
  return { url }
}

/** The host as `dns.lookup` and `isIP` want it (IPv6 literals without brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

// ---------------------------------------------------------------------------------------------
// Address ranges

const v4 = (address: string): number | undefined => {
  const parts = address.split(".")
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined
    value = value * 256 + Number(part)
  }
  return value
}

const V4_BLOCKED: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (CGNAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, and 255.255.255.255 broadcast
]
const V4_RANGES = V4_BLOCKED.map(([base, bits]) => ({ base: v4(base)!, size: 2 ** (32 - bits) }))

const isPublicV4 = (value: number) => !V4_RANGES.some((range) => value >= range.base && value < range.base + range.size)

/** The 8 groups of an IPv6 address (with an embedded dotted quad, `::ffff:1.2.3.4`), or undefined. */
const v6Groups = (address: string): ReadonlyArray<number> | undefined => {
  let text = address.toLowerCase().replace(/%.*$/, "")
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const value = v4(dotted[1]!)
    if (value === undefined) return undefined
    text = `${text.slice(0, -dotted[1]!.length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const parse = (half: string) => (half === "" ? [] : half.split(":").map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? parseInt(group, 16) : NaN)))
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail]
  return groups.some(Number.isNaN) ? undefined : groups
}

const isPublicV6 = (groups: ReadonlyArray<number>): boolean => {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  const embeddedV4 = g6 * 65536 + g7
  if (groups.every((g) => g === 0)) return false // unspecified
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return false // loopback
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) return isPublicV4(embeddedV4) // mapped / compatible
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPublicV4(embeddedV4) // NAT64
  if ((g0 & 0xfe00) === 0xfc00) return false // unique local
  if ((g0 & 0xffc0) === 0xfe80) return false // link-local
  if ((g0 & 0xffc0) === 0xfec0) return false // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return false // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return false // documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return false // discard
  if (g0 === 0x2002) return isPublicV4(g1 * 65536 + g2) // 6to4 carries an IPv4 address
  return true
}

/** Whether an IP address (v4 or v6, as `dns.lookup` returns them) is on the public internet. */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address.replace(/%.*$/, ""))
  if (family === 4) return isPublicV4(v4(address)!)
  if (family === 6) {
    const groups = v6Groups(address)
    return groups !== undefined && isPublicV6(groups)
  }
  return false
}

// ---------------------------------------------------------------------------------------------
// Resolution

interface Address {
  readonly address: string
  readonly family: number
}

const lookupAll = (host: string): Promise<ReadonlyArray<Address>> =>
  new Promise((resolve, reject) =>
    dns.lookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)))
  )

/** Resolves the target's host; `private` when any of its addresses may not be reached. */
export const checkTargetAddresses = async (url: URL, allowPrivate: boolean): Promise<TargetProblem | undefined> => {
  const host = hostOf(url)
  let addresses: ReadonlyArray<Address>
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }]
  } else {
    try {
      addresses = await lookupAll(host)
    } catch {
      return "unresolvable"
    }
  }
  if (addresses.length === 0) return "unresolvable"
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) return "private"
  return undefined
}

export class RefusedTarget extends Error {
  readonly code = "EWEBHOOKTARGET"
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Array<dns.LookupAddress>, family?: number) => void

/**
 * A `lookup` for sockets (http.Agent / net.connect): resolves, then refuses the connection when
 * any address is not public. The socket connects only to addresses this function approved,
 * so there is no window between the check and the connection.
 */
export const guardedLookup = (allowPrivate: boolean) =>
  (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "")
      if (!allowPrivate) {
        const refused = addresses.find((a) => !isPublicAddress(a.address))
        if (refused) return callback(new RefusedTarget(`${hostname} resolves to ${refused.address}, a non-public address`), "")
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "")
      if (options.all) return callback(null, addresses)
      const first = addresses[0]!
      callback(null, first.address, first.family)
    })
  }
