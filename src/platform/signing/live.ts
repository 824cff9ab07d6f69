import { Layer } from "effect"
import { AppConfig } from "../config.ts"
import type { SigningProvider } from "./provider.ts"
import { RemoteSigningLive } from "./remote.ts"
import { type SandboxEnvelopes, SandboxSigningLive } from "./sandbox.ts"

type ProviderLayer = Layer.Layer<SigningProvider, never, AppConfig | SandboxEnvelopes>
const remote: ProviderLayer = RemoteSigningLive
const sandbox: ProviderLayer = SandboxSigningLive

/** The configured signing provider (SIGNING_PROVIDER): the built-in sandbox unless told otherwise. */
export const SigningProviderLive = Layer.unwrap(AppConfig.useSync((config) => (config.signingProvider === "remote" ? remote : sandbox)))
