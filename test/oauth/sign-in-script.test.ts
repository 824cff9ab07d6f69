import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashClientSecret } from "../../src/access/applications.ts"
import { hashPassword } from "../../src/access/passwords.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * The sign-in a reporting script drives: the real curl binary with a cookie jar, the
 * authenticity token cut out of the HTML with grep and sed, the code out of `Location` with
 * `code=\w+`, as the official reporting example does.
 */
let server: TestServer
let dir: string
const SECRET = "s3cret-of-the-reporting-script"
const REDIRECT = "https://reports.example/callback"
const EMAIL = "owner@demo.test"
const PASSWORD = "correct horse battery"

beforeAll(async () => {
  server = await startTestServer()
  dir = await mkdtemp(join(tmpdir(), "sign-in-script-"))
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
  await createBusiness(server.pool, { subdomain: "other" })
  const owner = await createPerson(server.pool, demo.id, { email: EMAIL, role: "owner" })
  await server.pool.query("update accounts set password_hash = $2 where id = $1", [owner.accountId, await hashPassword(PASSWORD)])
  await server.pool.query(
    `insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri, is_public) values ('reporter', $1, 'Reporter', $2, false)`,
    [hashClientSecret(SECRET), REDIRECT]
  )
})
afterAll(async () => {
  await server?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

const run = (file: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

const hostOf = (subdomain?: string) => (subdomain ? `${subdomain}.${TEST_BASE_DOMAIN}` : TEST_BASE_DOMAIN)

/** The example script, verbatim in spirit: bash, curl, grep, sed; prints the token response. */
const EXAMPLE_SCRIPT = String.raw`
set -euo pipefail
C="curl -s --resolve $HOST:$PORT:127.0.0.1 -c $JAR -b $JAR"
BASE="http://$HOST:$PORT"
extract_token() { grep -o 'name="authenticity_token" type="hidden" value="[^"]*"' | sed 's/.*value="\([^"]*\)"/\1/'; }

TOKEN=$($C "$BASE/accounts/sign_in" | extract_token)
$C -X POST -d "authenticity_token=$TOKEN" --data-urlencode "account[email]=$EMAIL" --data-urlencode "account[password]=$PASSWORD" \
  "$BASE/accounts/sign_in" > /dev/null

if [ "$MODE" = body ]; then
  PAGE=$($C -X GET -d "client_id=$CLIENT_ID&response_type=code&redirect_uri=$REDIRECT_URI" "$BASE/oauth/authorize")
else
  PAGE=$($C "$BASE/oauth/authorize?client_id=$CLIENT_ID&response_type=code&redirect_uri=$REDIRECT_URI")
fi
TOKEN=$(echo "$PAGE" | extract_token)

CODE=$($C -i -X POST -d "authenticity_token=$TOKEN" -d authorize=1 -d "client_id=$CLIENT_ID" -d response_type=code \
  -d "redirect_uri=$REDIRECT_URI" "$BASE/oauth/authorize" | grep -i '^location:' | grep -oE 'code=\w+' | sed 's/code=//')

$C -X POST -d grant_type=authorization_code -d "code=$CODE" -d "client_id=$CLIENT_ID" -d "client_secret=$CLIENT_SECRET" \
  -d "redirect_uri=$REDIRECT_URI" "$BASE/oauth/token"
`

const runExample = async (o: { mode: "query" | "body"; subdomain?: string; clientId?: string; secret?: string; redirectUri?: string }) => {
  const jar = join(dir, `jar-${Math.random().toString(36).slice(2)}`)
  const result = await run("bash", ["-c", EXAMPLE_SCRIPT], {
    HOST: hostOf(o.subdomain),
    PORT: String(server.port),
    JAR: jar,
    MODE: o.mode,
    EMAIL,
    PASSWORD,
    CLIENT_ID: o.clientId ?? "reporter",
    CLIENT_SECRET: o.secret ?? SECRET,
    REDIRECT_URI: o.redirectUri ?? REDIRECT
  })
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as { access_token: string; token_type: string }
}

interface CurlResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/** One curl call with a cookie jar, answering status, headers and body (`-D -`). */
const curlWith = (jar: string, subdomain?: string) => async (path: string, args: ReadonlyArray<string> = []): Promise<CurlResponse> => {
  const host = hostOf(subdomain)
  const result = await run("curl", [
    "-s", "-D", "-", "--resolve", `${host}:${server.port}:127.0.0.1`, "-c", jar, "-b", jar, ...args, `http://${host}:${server.port}${path}`
  ])
  expect(result.code, result.stderr).toBe(0)
  const split = result.stdout.indexOf("\r\n\r\n")
  const head = result.stdout.slice(0, split).split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":")
    const name = line.slice(0, colon).toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return { status: Number(head[0]!.split(" ")[1]), headers, body: result.stdout.slice(split + 4) }
}

const authenticityToken = (html: string) =>
  /name="authenticity_token" type="hidden" value="([^"]*)"/.exec(html)?.[1]

const newSession = (subdomain?: string) => curlWith(join(dir, `jar-${Math.random().toString(36).slice(2)}`), subdomain)

/** GET the sign-in form and post the credentials; answers the curl and the sign-in response. */
const signIn = async (o: { subdomain?: string; password?: string; locale?: string } = {}) => {
  const curl = newSession(o.subdomain)
  const form = await curl(`/accounts/sign_in${o.locale ? `?locale=${o.locale}` : ""}`)
  expect(form.status).toBe(200)
  const token = authenticityToken(form.body)!
  const signedIn = await curl(form.body.match(/action="([^"]*)"/)![1]!.replace(/&amp;/g, "&"), [
    "-X", "POST", "-d", `authenticity_token=${token}`,
    "--data-urlencode", `account[email]=${EMAIL}`, "--data-urlencode", `account[password]=${o.password ?? PASSWORD}`
  ])
  return { curl, form, signedIn }
}

const authorizeQuery = (o: { clientId?: string; redirectUri?: string } = {}) =>
  `client_id=${o.clientId ?? "reporter"}&response_type=code&redirect_uri=${encodeURIComponent(o.redirectUri ?? REDIRECT)}`

const consent = (curl: ReturnType<typeof curlWith>, token: string, fields: Record<string, string>) =>
  curl("/oauth/authorize", [
    "-X", "POST", "-d", `authenticity_token=${token}`,
    ...Object.entries(fields).flatMap(([name, value]) => ["--data-urlencode", `${name}=${value}`])
  ])

describe("the scripted sign-in (curl and a cookie jar)", () => {
  it("signs in, consents with GET parameters in the query, and the token works on its business only", async () => {
    const response = await runExample({ mode: "query", subdomain: "demo" })
    expect(response.token_type).toBe("bearer")
    const desk = await server.request("GET", "/api/v2/desk/business", { token: response.access_token })
    expect(desk.status).toBe(200)
    expect(desk.json.businesses[0].subdomain).toBe("demo")
    const elsewhere = await server.request("GET", "/api/v2/desk/business", { token: response.access_token, host: `other.${TEST_BASE_DOMAIN}` })
    expect(elsewhere.status).toBe(401)
  })

  it("takes the authorization parameters form-encoded in the body of the GET (curl -X GET -d)", async () => {
    const response = await runExample({ mode: "body", subdomain: "demo" })
    expect((await server.request("GET", "/api/v2/desk/locations", { token: response.access_token })).status).toBe(200)
  })

  it("grants an account-wide token on the account-level host", async () => {
    const response = await runExample({ mode: "body" })
    const account = await server.request("GET", "/api/v2/account", { token: response.access_token, host: TEST_BASE_DOMAIN })
    expect(account.status).toBe(200)
    expect(account.json.accounts[0].email).toBe(EMAIL)
  })

  it("renders the hidden input exactly as Rails does, and answers a code of word characters", async () => {
    const { curl, form, signedIn } = await signIn({ subdomain: "demo" })
    expect(form.body).toContain("Log in to Demo Studio")
    expect(form.body).toMatch(/<input name="authenticity_token" type="hidden" value="[A-Za-z0-9_-]{32}">/)
    expect(signedIn.status).toBe(200)
    expect(signedIn.body).toContain("You are signed in as owner@demo.test.")
    // The session cookie is the host's: /accounts/sign_out reads it too.
    expect(signedIn.headers["set-cookie"]).toMatch(/studio_sid=[^;]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax/)
    const page = await curl(`/oauth/authorize?${authorizeQuery()}&state=xyz`)
    expect(page.status).toBe(200)
    expect(page.body).toContain("Reporter asks to use your account owner@demo.test at Demo Studio")
    // One token serves the signed-in forms, as Rails' per-session token does; the sign-in
    // replaced the one of the sign-in form (rotated at sign-in).
    expect(authenticityToken(page.body)).toBe(authenticityToken(signedIn.body))
    expect(authenticityToken(page.body)).not.toBe(authenticityToken(form.body))
    const decided = await consent(curl, authenticityToken(page.body)!, {
      authorize: "1", client_id: "reporter", response_type: "code", redirect_uri: REDIRECT, state: "xyz"
    })
    expect([302, 303]).toContain(decided.status)
    const location = new URL(decided.headers["location"]!)
    expect(location.origin + location.pathname).toBe(REDIRECT)
    expect(location.searchParams.get("state")).toBe("xyz")
    expect(/code=(\w+)/.exec(decided.headers["location"]!)![1]).toBe(location.searchParams.get("code"))
  })

  it("follows a return_to an authorization request after signing in", async () => {
    const curl = newSession("demo")
    const returnTo = `/oauth/authorize?${authorizeQuery()}`
    const form = await curl(`/accounts/sign_in?return_to=${encodeURIComponent(returnTo)}`)
    const signedIn = await curl("/accounts/sign_in", [
      "-X", "POST", "-d", `authenticity_token=${authenticityToken(form.body)}`, "--data-urlencode", `return_to=${returnTo}`,
      "--data-urlencode", `account[email]=${EMAIL}`, "--data-urlencode", `account[password]=${PASSWORD}`
    ])
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers["location"]).toBe(returnTo)
    // Anything but an authorization request is not followed.
    const offsite = await curl("/accounts/sign_in?return_to=https://evil.example/")
    expect(offsite.body).not.toContain("evil.example")
  })
})

describe("refusals", () => {
  it("re-renders the form with an error and opens no session on a wrong password", async () => {
    const { curl, signedIn } = await signIn({ subdomain: "demo", password: "not the password" })
    expect(signedIn.status).toBe(401)
    expect(signedIn.body).toContain("The e-mail address or the password is not right")
    expect(authenticityToken(signedIn.body)).toBeDefined()
    expect(signedIn.headers["set-cookie"] ?? "").not.toContain("studio_sid")
    // Not signed in: the authorization request asks for a login instead of consent.
    const page = await curl(`/oauth/authorize?${authorizeQuery()}`)
    expect(page.body).toContain('action="/oauth/login"')
    expect(authenticityToken(page.body)).toBeUndefined()
  })

  it("translates the sign-in pages per the request's locale", async () => {
    const { form, signedIn } = await signIn({ subdomain: "demo", password: "wrong password", locale: "de" })
    expect(form.body).toContain('<html lang="de">')
    expect(signedIn.body).toContain('<html lang="de">')
    expect(signedIn.body).not.toContain("The e-mail address or the password is not right")
  })

  it("refuses a sign-in without the authenticity token or with a forged one", async () => {
    const curl = newSession("demo")
    const form = await curl("/accounts/sign_in")
    const credentials = ["--data-urlencode", `account[email]=${EMAIL}`, "--data-urlencode", `account[password]=${PASSWORD}`]
    const missing = await curl("/accounts/sign_in", ["-X", "POST", ...credentials])
    expect(missing.status).toBe(403)
    expect(missing.body).toContain("The form expired")
    const forged = await curl("/accounts/sign_in", ["-X", "POST", "-d", `authenticity_token=${"x".repeat(32)}`, ...credentials])
    expect(forged.status).toBe(403)
    // A token without its cookie (another jar) is no better.
    const otherJar = await newSession("demo")("/accounts/sign_in", [
      "-X", "POST", "-d", `authenticity_token=${authenticityToken(form.body)}`, ...credentials
    ])
    expect(otherJar.status).toBe(403)
    for (const response of [missing, forged, otherJar]) expect(response.headers["set-cookie"] ?? "").not.toContain("studio_sid")
  })

  it("refuses a consent without the authenticity token or with a forged one", async () => {
    const { curl } = await signIn({ subdomain: "demo" })
    const fields = { authorize: "1", client_id: "reporter", response_type: "code", redirect_uri: REDIRECT }
    const forged = await consent(curl, "y".repeat(32), fields)
    expect(forged.status).toBe(403)
    expect(forged.headers["location"]).toBeUndefined()
    const missing = await curl("/oauth/authorize", ["-X", "POST", "-d", "authorize=1&client_id=reporter&response_type=code", "--data-urlencode", `redirect_uri=${REDIRECT}`])
    expect(missing.status).toBe(403)
  })

  it("sends the refusal back to the client as access_denied for anything but authorize=1", async () => {
    const { curl } = await signIn({ subdomain: "demo" })
    const token = authenticityToken((await curl(`/oauth/authorize?${authorizeQuery()}`)).body)!
    for (const authorize of ["0", "yes", ""]) {
      const denied = await consent(curl, token, { authorize, client_id: "reporter", response_type: "code", redirect_uri: REDIRECT })
      expect(denied.status).toBe(302)
      const location = new URL(denied.headers["location"]!)
      expect(location.searchParams.get("error")).toBe("access_denied")
      expect(location.searchParams.has("code")).toBe(false)
    }
  })

  it("shows an error page, never a redirect, for a return address other than the registered one", async () => {
    const { curl } = await signIn({ subdomain: "demo" })
    for (const redirectUri of ["https://evil.example/callback", `${REDIRECT}/`, "https://reports.example/callback?x=1"]) {
      const page = await curl(`/oauth/authorize?${authorizeQuery({ redirectUri })}`)
      expect(page.status).toBe(400)
      expect(page.body).toContain("a return address it has not registered")
      expect(authenticityToken(page.body)).toBeUndefined()
    }
    const token = authenticityToken((await curl(`/oauth/authorize?${authorizeQuery()}`)).body)!
    const posted = await consent(curl, token, { authorize: "1", client_id: "reporter", response_type: "code", redirect_uri: "https://evil.example/callback" })
    expect(posted.status).toBe(400)
    expect(posted.headers["location"]).toBeUndefined()
  })

  it("signs out: the jar's session no longer reaches consent", async () => {
    const { curl, signedIn } = await signIn({ subdomain: "demo" })
    const token = authenticityToken(signedIn.body)!
    const refused = await curl("/accounts/sign_out", ["-X", "DELETE"])
    expect(refused.status).toBe(403)
    const out = await curl("/accounts/sign_out", ["-X", "DELETE", "-d", `authenticity_token=${token}`])
    expect(out.status).toBe(303)
    expect(out.headers["location"]).toMatch(/^\/accounts\/sign_in/)
    const page = await curl(`/oauth/authorize?${authorizeQuery()}`)
    expect(page.body).toContain('action="/oauth/login"')
  })

  it("keeps a session to the host it was opened on", async () => {
    const jar = join(dir, "jar-hosts")
    const demo = curlWith(jar, "demo")
    const form = await demo("/accounts/sign_in")
    await demo("/accounts/sign_in", [
      "-X", "POST", "-d", `authenticity_token=${authenticityToken(form.body)}`,
      "--data-urlencode", `account[email]=${EMAIL}`, "--data-urlencode", `account[password]=${PASSWORD}`
    ])
    const other = await curlWith(jar, "other")(`/oauth/authorize?${authorizeQuery()}`)
    expect(other.body).toContain('action="/oauth/login"')
    expect(await readFile(jar, "utf8")).toContain(`demo.${TEST_BASE_DOMAIN}`)
  })
})

describe("redirect URIs registered with the CLI", () => {
  const studio = (...args: Array<string>) =>
    run(process.execPath, ["src/cli.ts", ...args], { DATABASE_URL: server.databaseUrl, DATA_DIR: join(dir, "data"), LOG_LEVEL: "info" })

  it("compares the string registered, without a trailing slash added", async () => {
    const created = await studio("app", "create", "--name", "Foo", "--redirect-uri", "http://foo.com")
    expect(created.code, created.stderr).toBe(0)
    const app = JSON.parse(created.stdout) as { client_id: string; client_secret: string }
    const stored = await server.pool.query("select redirect_uri from oauth_applications where client_id = $1", [app.client_id])
    expect(stored.rows[0].redirect_uri).toBe("http://foo.com")

    const { curl } = await signIn({ subdomain: "demo" })
    const normalized = await curl(`/oauth/authorize?${authorizeQuery({ clientId: app.client_id, redirectUri: "http://foo.com/" })}`)
    expect(normalized.status).toBe(400)
    expect(normalized.body).toContain("a return address it has not registered")

    const response = await runExample({ mode: "body", subdomain: "demo", clientId: app.client_id, secret: app.client_secret, redirectUri: "http://foo.com" })
    expect((await server.request("GET", "/api/v2/desk/business", { token: response.access_token })).status).toBe(200)
  })

  it("refuses a redirect URI with a fragment or that is not absolute", async () => {
    for (const uri of ["http://foo.com/#", "/callback"]) {
      const result = await studio("app", "create", "--name", "Bad", "--redirect-uri", uri)
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain("--redirect-uri")
    }
  })
})
