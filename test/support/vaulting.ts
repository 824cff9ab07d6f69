import { expect } from "vitest"
import type { Studio } from "./studio.ts"
import { studioCallers } from "./studio.ts"
import { followLink } from "./http.ts"

/**
 * A card vaulted for `personId` through the sandbox gateway's three steps in staff mode (start,
 * the gateway's form, its redirect back); answers the new form of payment's id.
 */
export const vaultCard = async (s: Studio, personId: number, number: string) => {
  const { desk } = studioCallers(() => s)
  const started = await desk("POST", `/people/${personId}/form_of_payments`, { form_of_payment: { type: "creditcard" } })
  expect(started.status, started.text).toBe(201)
  const fields = {
    "billing-cc-number": number,
    "billing-cc-exp": "1230",
    "billing-cvv": "123",
    "billing-first-name": "Cleo",
    "billing-last-name": "Client",
    "billing-postal": "94110"
  }
  const posted = await followLink(s.server.request, started.json.form_of_payments[0].form_url, "POST", new URLSearchParams(fields).toString())
  expect(posted.status, posted.text).toBe(303)
  const done = await followLink(s.server.request, posted.headers.location!)
  expect(done.status, done.text).toBe(200)
  const list = await desk("GET", `/people/${personId}/form_of_payments`)
  return Math.max(...list.json.form_of_payments.map((f: { id: number }) => f.id)) as number
}
