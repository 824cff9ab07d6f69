import { Effect } from "effect"

/** Placeholder replaced by the demo seed (helper at work). */
export const seedDemo = Effect.succeed({
  subdomain: "demo",
  clientId: "demo-app",
  ownerToken: "",
  clientToken: "",
  password: "studio-demo"
})
