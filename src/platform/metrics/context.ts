import { Context } from "effect"

/**
 * Metric updates on hot paths go through `updateUnsafe` with this empty context: the default
 * registry and no contextual attributes, the same registry `PrometheusMetrics.format()` reads.
 */
export const NO_CONTEXT = Context.empty()
