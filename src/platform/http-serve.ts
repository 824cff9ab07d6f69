import { Context, Effect, Layer, Scope } from "effect"
import { HttpRouter, HttpServer, type HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"

/**
 * The context every request starts from, kept small.
 *
 * `HttpRouter.serve` starts each request's fiber from the context the server was built in:
 * every service of the layer graph (≈ 45 here: repos, caches, clients). Each HttpApi handler
 * group then provides the context *it* was built in, the same services again, and
 * `Effect.provideContext` merges the two by copying both into a new Map on every request
 * (the largest single allocation of a request, and ≈ 8 µs of CPU at this size).
 *
 * `serveApp` is `HttpRouter.serve(app, { disableLogger: true, disableListenLog: true })`
 * except that requests start from Effect's own services and references only (keys under
 * `effect/`: loggers, log level, clock, scope, HTTP platform, file system). The application's
 * services reach code through the context its layer was built in:
 * - HttpApi handler groups: `HttpApiBuilder.group` captures it (Effect's own behaviour);
 * - other routes (`HttpRouter.add`): wrap their layer in `withBuildContext`;
 * - the global request pipeline and the access middlewares read their services once, when
 *   built, never from the request's context.
 * A service missing at run time is a defect naming it ("Service not found"), caught by any
 * test of the route.
 */
const isEffectKey = (key: string) => key.startsWith("effect/") || key.startsWith("~effect/")

const requestBase = <R>(context: Context.Context<R>): Context.Context<R> =>
  Context.makeUnsafe(new Map(Array.from(context.mapUnsafe).filter(([key]) => isEffectKey(key))))

/** `HttpRouter.serve(app, { disableLogger: true, disableListenLog: true })`, requests starting from `requestBase`. */
export const serveApp = <A, E, R>(
  appLayer: Layer.Layer<A, E, R>
): Layer.Layer<
  A,
  HttpRouter.Request.Without<E>,
  | HttpServer.HttpServer
  | Exclude<
    | HttpRouter.Request.Without<R>
    | Exclude<HttpRouter.Request.Only<"Requires", R> | HttpRouter.Request.Only<"GlobalRequires", R>, HttpRouter.GlobalProvided>,
    HttpRouter.HttpRouter
  >
> =>
  Layer.unwrap(
    Effect.contextWith((context: Context.Context<Scope.Scope>) =>
      Effect.map(
        // Like `HttpRouter.serve`: the app's layers are built with a fork of the memo map,
        // private to this server.
        Layer.buildWithMemoMap(
          Layer.provideMerge(appLayer, HttpRouter.layer),
          Layer.CurrentMemoMap.forkOrCreate(context),
          Context.get(context, Scope.Scope)
        ),
        (built) => {
          const handler = Context.get(built, HttpRouter.HttpRouter).asHttpEffect()
          const serve = HttpServer.HttpServer.use((server) => server.serve(handler)).pipe(
            Effect.updateContext(requestBase)
          )
          return Layer.merge(Layer.effectDiscard(serve), Layer.succeedContext(built))
        }
      ))
  ) as never

/**
 * Routes added with `HttpRouter.add` read services from the request's context; under
 * `serveApp` they get the context their layer was built in, as HttpApi handler groups do.
 */
export const withBuildContext = <A, E, R>(routes: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.provide(routes, BuildContext.layer) as Layer.Layer<A, E, R>

const BuildContext = HttpRouter.middleware(
  Effect.map(Effect.context<never>(), (context) => {
    // The request's own scope, not the layer's.
    const services = Context.omit(Scope.Scope)(context)
    return (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>) => Effect.provideContext(effect, services)
  })
)
