import type { ImportDocumentInput } from "../import/model.ts"
import { SERVICE } from "./keys.ts"

/**
 * What the demo's instructors earn: a default rate each (hourly for appointments), a richer rate
 * for their signature classes with per-head and tiered bonuses, and Ines's commission on the
 * sales she is the commission recipient of. Spread into the demo document (document.ts).
 */
export const demoPayRates: Pick<ImportDocumentInput, "pay_rates"> = {
  pay_rates: [
    { staff: "ines@demo.test", base_cents: 4000, per_head_cents: 150, per_head_minimum: 8, hourly_cents: 7000, commission_basis_points: 1000 },
    {
      staff: "ines@demo.test",
      service: SERVICE.vinyasa,
      base_cents: 4500,
      per_head_cents: 200,
      per_head_minimum: 6,
      tiers: [{ attendance: 10, bonus_cents: 1000 }, { attendance: 15, bonus_cents: 2500 }]
    },
    { staff: "tom@demo.test", base_cents: 3500, hourly_cents: 6500 },
    { staff: "tom@demo.test", service: SERVICE.reformer, base_cents: 5000, per_head_cents: 300, per_head_minimum: 4, tiers: [{ attendance: 8, bonus_cents: 1500 }] },
    { staff: "sam@demo.test", base_cents: 3000, per_head_cents: 100, per_head_minimum: 10, hourly_cents: 5500 }
  ]
}
