import { expect, it } from "vitest"

// Run only by test/platform/exit-code.test.ts, through vitest.config.ts next to this file.
it("fails on purpose", () => {
  expect(1).toBe(2)
})
