import { Agent, fetch as undiciFetch } from "undici"

/**
 * A fetch that sends every host name to 127.0.0.1, so clients that use real URLs
 * (`http://demo.studio.test:PORT/...`, as oauth4webapi does) reach the test server with the
 * right Host header. A small cookie jar and manual redirects let a test play the browser.
 */
const loopback = new Agent({
  connect: {
    lookup: (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [{ address: "127.0.0.1", family: 4 }] as never)
      else callback(null, "127.0.0.1", 4)
    }
  }
})

export const loopbackFetch = ((input: string | URL, init?: RequestInit) =>
  undiciFetch(input as never, { ...(init as object), dispatcher: loopback } as never)) as unknown as typeof fetch

export class Browser {
  private readonly cookies = new Map<string, string>()

  async request(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers }
    if (this.cookies.size > 0) headers["cookie"] = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
    let body: string | undefined
    if (init.form) {
      body = new URLSearchParams(init.form).toString()
      headers["content-type"] = "application/x-www-form-urlencoded"
    }
    const response = await loopbackFetch(url, { method: init.method ?? (init.form ? "POST" : "GET"), headers, body, redirect: "manual" })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";")
      const [name, value] = pair!.split("=")
      const expired = attributes.some((a) => /max-age=0|expires=thu, 01 jan 1970/i.test(a.trim()))
      if (expired || value === "") this.cookies.delete(name!.trim())
      else this.cookies.set(name!.trim(), value!.trim())
    }
    return { status: response.status, location: response.headers.get("location"), text: await response.text(), headers: response.headers }
  }

  /** The value of a hidden input in the last page. */
  static field(html: string, name: string): string | undefined {
    const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)
    return match?.[1]?.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
  }
}
