import { Schema } from "effect"

/** Field schemas of the import format shared by its business part (model.ts) and its schedule part (schedule.ts). */

export const Text = (max: number, description?: string) =>
  Schema.String.check(
    Schema.makeFilter((s: string) => s.trim().length > 0 || "must not be blank"),
    Schema.isMaxLength(max, { message: `must be at most ${max} characters` })
  ).annotate(description ? { description } : {})

export const OptionalText = (max: number) =>
  Schema.String.check(Schema.isMaxLength(max, { message: `must be at most ${max} characters` }))

export const isHexColor = Schema.isPattern(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/u, { message: "must be a hex color such as #1a73e8" })
