import { Context, Effect } from "effect"
import { HttpRouter } from "effect/http"
import { RequestContext } from "../shared/request-context.ts"

/**
 * A route middleware (every route of the app gets it: src/app/http.ts) that writes the template of
 * the matched route into the request's RequestContext, for the request metrics' `route` label:
 * the router knows the template only inside the route, after the global request pipeline handed
 * the request on. One context read and one field write per request.
 */
export const RouteTemplate = HttpRouter.middleware((effect) =>
  Effect.withFiber((fiber) => {
    const route = Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)
    if (route !== undefined) fiber.getRef(RequestContext).route = route.route.path
    return effect
  })
)
