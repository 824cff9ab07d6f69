/**
 * The service's own OAuth applications: public clients (PKCE, no secret) whose pages this
 * service serves. Each is registered on first use (OAuthRepo.applicationByClientId), in every
 * deployment, production included: a row with no secret and a path as redirect URI (the page on
 * the business host that authorizes, src/identity/oauth/redirect.ts). Not at start or by a migration, so a
 * fresh production database holds no application until a person uses one.
 */
export interface FirstPartyApplication {
  readonly name: string
  /** A path: that page on the business host of the authorization. */
  readonly redirectUri: string
}

export const REPORTS_PLAYGROUND_CLIENT_ID = "reports-playground"

export const FIRST_PARTY_APPLICATIONS: ReadonlyMap<string, FirstPartyApplication> = new Map([
  [REPORTS_PLAYGROUND_CLIENT_ID, { name: "Reports playground", redirectUri: "/reports" }]
])
