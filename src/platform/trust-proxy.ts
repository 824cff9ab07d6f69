import { BlockList, isIP } from "node:net"

/**
 * Which peers may tell the service who the client is (TRUST_PROXY). Off by default: the socket's
 * peer is the client, and `X-Forwarded-For`, `-Host` and `-Proto` are ignored, since anyone can
 * send them. Behind a load balancer the operator says either how many proxies stand in front
 * (`1`: the peer is the load balancer) or which addresses they have (`10.0.0.0/8, 127.0.0.1`).
 */
export type TrustProxy =
  | { readonly _tag: "Off" }
  | { readonly _tag: "Hops"; readonly hops: number }
  | { readonly _tag: "Ranges"; readonly ranges: BlockList; readonly description: string }

export const TRUST_NONE: TrustProxy = { _tag: "Off" }

/**
 * TRUST_PROXY's value: unset, `false`, `off` or `0` trust nobody; a positive integer is a hop
 * count; anything else a comma-separated list of addresses and CIDR ranges (IPv4 or IPv6, and
 * `loopback` for 127.0.0.0/8 and ::1). An entry that is none of these is an error, so that a
 * typo does not silently trust nobody (or everybody).
 */
export const parseTrustProxy = (value: string | undefined): TrustProxy | { readonly _tag: "Invalid"; readonly entry: string } => {
  const text = (value ?? "").trim().toLowerCase()
  if (text === "" || text === "false" || text === "off" || text === "0") return TRUST_NONE
  if (/^\d+$/.test(text)) return { _tag: "Hops", hops: Number(text) }
  const ranges = new BlockList()
  for (const raw of text.split(",")) {
    const entry = raw.trim()
    if (entry === "") continue
    if (entry === "loopback") {
      ranges.addSubnet("127.0.0.0", 8, "ipv4")
      ranges.addAddress("::1", "ipv6")
      continue
    }
    const [address = "", prefix] = entry.split("/")
    const family = isIP(address)
    const bits = prefix === undefined ? undefined : Number(prefix)
    if (family === 0 || (bits !== undefined && (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) || prefix === "")) {
      return { _tag: "Invalid", entry }
    }
    const type = family === 4 ? "ipv4" : "ipv6"
    if (bits === undefined) ranges.addAddress(address, type)
    else ranges.addSubnet(address, bits, type)
  }
  return { _tag: "Ranges", ranges, description: text }
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is `10.0.0.1`. */
const plainAddress = (address: string) => (address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address)

const isTrusted = (trust: TrustProxy, address: string, position: number): boolean => {
  switch (trust._tag) {
    case "Off":
      return false
    case "Hops":
      return position < trust.hops
    case "Ranges": {
      const family = isIP(address)
      return family !== 0 && trust.ranges.check(address, family === 4 ? "ipv4" : "ipv6")
    }
  }
}

/** Whether the socket's peer is a proxy of ours: only then are its `X-Forwarded-*` headers believed. */
export const peerIsTrusted = (trust: TrustProxy, peer: string): boolean => isTrusted(trust, plainAddress(peer), 0)

/**
 * The client's address: walking from the socket's peer leftwards through `X-Forwarded-For`
 * (each proxy appends the address it received the request from), the first address that is not
 * a trusted proxy. Entries left of it were written by the client and are never read. An entry
 * that is not an address ends the walk at the proxy that passed it on.
 */
export const clientAddress = (trust: TrustProxy, peer: string, forwardedFor: string | undefined): string => {
  let client = plainAddress(peer)
  if (trust._tag === "Off" || forwardedFor === undefined || !isTrusted(trust, client, 0)) return client
  const hops = forwardedFor.split(",")
  for (let i = hops.length - 1, position = 1; i >= 0; i--, position++) {
    const address = plainAddress(hops[i]!.trim())
    if (isIP(address) === 0) return client
    client = address
    if (!isTrusted(trust, client, position)) return client
  }
  return client
}

/**
 * The right-most value of an `X-Forwarded-Host`/`-Proto` list: the one our own proxy wrote. A
 * proxy that appends rather than replaces would leave the client's own value on the left.
 */
export const lastForwarded = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const last = value.slice(value.lastIndexOf(",") + 1).trim()
  return last === "" ? undefined : last
}

/** A TRUST_PROXY value known to be valid (configurations built in code, tests); throws otherwise. */
export const trustedProxies = (value: string): TrustProxy => {
  const trust = parseTrustProxy(value)
  if (trust._tag === "Invalid") throw new Error(`TRUST_PROXY: "${trust.entry}" is neither an address nor a CIDR range`)
  return trust
}
