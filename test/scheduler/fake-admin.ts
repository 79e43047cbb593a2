import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** How the fake admin answers one call: the real admin's `{"code":200}`, or one of the failures it can be told to show. */
export type AdminMode = 'ok' | 'http500' | 'code500' | 'down'

export interface AdminCall {
  readonly path: string
  readonly body: unknown
  readonly tokenOk: boolean
  readonly mode: AdminMode
  /** true when this call got `{"code":200}`. */
  readonly accepted: boolean
}

export interface FakeAdmin {
  /** Base address as XXLJOB_ADMIN_ADDRESSES holds it (≤ 3.4.0 context path). */
  readonly url: string
  readonly calls: AdminCall[]
  /** Callback items the admin accepted (answered code 200), in arrival order. */
  accepted(): { logId: number; logDateTim: number; handleCode: number; handleMsg: string }[]
  /** Bodies of accepted calls to `api/<name>`. */
  bodies(name: 'callback' | 'registry' | 'registryRemove'): unknown[]
  /** The next `api/callback` calls are answered with these modes in order, then with the standing mode again. */
  script(...modes: AdminMode[]): void
  /** Every call is answered with this mode until changed. */
  setMode(mode: AdminMode): void
  close(): Promise<void>
}

/**
 * A stand-in XXL-JOB admin on a free loopback port: `POST /xxl-job-admin/api/{callback,registry,registryRemove}`,
 * checks the token like JobApiController, records every body and can fail on demand (HTTP 500, `{"code":500}`,
 * a dropped connection).
 */
export async function startFakeAdmin(token: string): Promise<FakeAdmin> {
  const calls: AdminCall[] = []
  const queue: AdminMode[] = []
  let standing: AdminMode = 'ok'
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = text
      }
      const path = (req.url ?? '').replace(/^\/xxl-job-admin\/api\//, '')
      const tokenOk = req.headers['xxl-job-access-token'] === token
      const mode = (path === 'callback' ? queue.shift() : undefined) ?? standing
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(payload))
      }
      const known = ['callback', 'registry', 'registryRemove'].includes(path) && req.method === 'POST'
      const accepted = mode === 'ok' && tokenOk && known
      calls.push({ path, body, tokenOk, mode, accepted })
      if (mode === 'down') {
        req.socket.destroy()
        return
      }
      if (mode === 'http500') return reply(500, { error: 'Internal Server Error' })
      if (mode === 'code500') return reply(200, { code: 500, msg: 'admin busy' })
      if (!tokenOk) return reply(200, { code: 500, msg: 'The access token is wrong.' })
      if (!known) return reply(200, { code: 500, msg: 'invalid request, uri-mapping not found.' })
      return reply(200, { code: 200 })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/xxl-job-admin`,
    calls,
    accepted: () =>
      calls
        .filter((c) => c.accepted && c.path === 'callback')
        .flatMap((c) => c.body as { logId: number; logDateTim: number; handleCode: number; handleMsg: string }[]),
    bodies: (name) => calls.filter((c) => c.accepted && c.path === name).map((c) => c.body),
    script: (...modes) => queue.push(...modes),
    setMode: (mode) => {
      standing = mode
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
