import { execFile } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hashClientSecret } from "../../src/access/applications.ts"
import { hashPassword } from "../../src/access/passwords.ts"
import { canonicalHeaderName } from "../../src/platform/canonical-headers.ts"
import { createBusiness, createPerson } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 30: response header names go out in canonical capitalisation, as the public service
 * sends them, because scripts match them case-sensitively: the Reporting API example's
 * retrieve_auth_token.sh reads the code with `perl -n -e '/Location: .+?code=(\w+)/'` over
 * `curl -D -`. Real curl, real perl, over a socket.
 */
let server: TestServer
let dir: string
const SECRET = "s3cret-of-the-token-script"
const REDIRECT = "https://reports.example/callback"
const EMAIL = "owner@demo.test"
const PASSWORD = "correct horse battery"
const HOST = `demo.${TEST_BASE_DOMAIN}`

beforeAll(async () => {
  server = await startTestServer()
  dir = await mkdtemp(join(tmpdir(), "canonical-headers-"))
  const demo = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio" })
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

const bash = (script: string, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile("bash", ["-c", script], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

/** The token script's steps: sign in with a cookie jar, consent, and the code read by the perl line, verbatim. */
const TOKEN_SCRIPT = String.raw`
set -euo pipefail
C="curl -s --resolve $HOST:$PORT:127.0.0.1 -c $JAR -b $JAR"
BASE="http://$HOST:$PORT"
extract_token() { grep -o 'name="authenticity_token" type="hidden" value="[^"]*"' | sed 's/.*value="\([^"]*\)"/\1/'; }
TOKEN=$($C "$BASE/accounts/sign_in" | extract_token)
$C -X POST -d "authenticity_token=$TOKEN" --data-urlencode "account[email]=$EMAIL" --data-urlencode "account[password]=$PASSWORD" \
  "$BASE/accounts/sign_in" > /dev/null
TOKEN=$($C -X GET -d "client_id=reporter&response_type=code&redirect_uri=$REDIRECT_URI" "$BASE/oauth/authorize" | extract_token)
CODE=$($C -D - -o /dev/null -X POST -d "authenticity_token=$TOKEN" -d authorize=1 -d client_id=reporter -d response_type=code \
  -d "redirect_uri=$REDIRECT_URI" "$BASE/oauth/authorize" | perl -n -e '/Location: .+?code=(\w+)/ && print $1')
test -n "$CODE"
$C -X POST -d grant_type=authorization_code -d "code=$CODE" -d client_id=reporter -d "client_secret=$SECRET" \
  -d "redirect_uri=$REDIRECT_URI" "$BASE/oauth/token"
`

describe("response header names", () => {
  it("carry the code in `Location:` for the public token script's perl line over curl -D -", async () => {
    const result = await bash(TOKEN_SCRIPT, {
      HOST, PORT: String(server.port), JAR: join(dir, "jar"), EMAIL, PASSWORD, SECRET, REDIRECT_URI: REDIRECT
    })
    expect(result.code, result.stderr).toBe(0)
    const token = JSON.parse(result.stdout) as { access_token: string }
    expect((await server.request("GET", "/api/v2/desk/business", { token: token.access_token })).status).toBe(200)
  })

  it("are canonical on API answers and refusals (Content-Type, RateLimit-*, X-Request-Id)", async () => {
    const head = await bash(`curl -s -D - -o /dev/null --resolve $HOST:$PORT:127.0.0.1 "http://$HOST:$PORT/api/v2/desk/business" -H 'Authorization: Bearer nope'`, {
      HOST, PORT: String(server.port)
    })
    const names = head.stdout.split("\r\n").slice(1).filter(Boolean).map((line) => line.slice(0, line.indexOf(":")))
    expect(names).toContain("Content-Type")
    expect(names).toContain("RateLimit-Limit")
    expect(names).toContain("X-Request-Id")
    for (const name of names) expect(name).toBe(canonicalHeaderName(name))
    expect(names.filter((name) => name !== canonicalHeaderName(name.toLowerCase()))).toEqual([])
  })
})
