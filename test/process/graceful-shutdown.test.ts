import { chmod, mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isProcessAlive, readPostmasterPid } from '../../src/storage/embedded-postgres.js'
import { startServerProcess } from '../support/server-process.js'
import { waitFor } from '../support/wait.js'

const TOKEN = 'shutdown-test-token'

/**
 * A request in flight until `finish` is called: on one keep-alive connection, a whole `GET /health` first (once it
 * is answered, the server has accepted the connection and reads from it), then the headers and half the body of a
 * POST. `response` is that POST's answer, read when the server closes the connection.
 */
async function startSlowRequest(
  url: string,
): Promise<{ finish: () => void; response: Promise<{ status: number; body: string }> }> {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  let raw = ''
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('data', (c) => {
      raw += c.toString()
    })
    socket.on('error', reject)
    socket.on('close', () => resolve(raw))
  })
  socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`)
  await waitFor(
    () => {
      const [head = '', ...rest] = raw.split('\r\n\r\n')
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN)
      return rest.join('\r\n\r\n').length >= length
    },
    30_000,
    () => `an answer to GET /health on the slow connection: ${raw}`,
  )
  const first = raw.length
  const body = '{"jobId":1}'
  socket.write(
    `POST /api/v1/xxljob/idleBeat HTTP/1.1\r\nHost: ${hostname}\r\nXXL-JOB-ACCESS-TOKEN: ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  )
  const response = closed.then((all) => {
    const second = all.slice(first)
    return { status: Number(second.split(' ')[1]), body: second.split('\r\n\r\n')[1] ?? '' }
  })
  return { finish: () => socket.end(body.slice(5)), response }
}

describe('graceful shutdown of a real server process', () => {
  let root: string
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-shutdown-'))
    await chmod(root, 0o755)
  })
  afterAll(async () => rm(root, { recursive: true, force: true }))

  it('finishes the in-flight request with 200, exits 0 within 10 s and stops the embedded database', async () => {
    const server = await startServerProcess({
      PG_DATA_DIR: path.join(root, 'pg'),
      PLAN_DATA_DIR: path.join(root, 'plan'),
      XXLJOB_ACCESS_TOKEN: TOKEN,
    })
    const postmaster = await readPostmasterPid(path.join(root, 'pg'))
    expect(postmaster && isProcessAlive(postmaster.pid)).toBe(true)

    const slow = await startSlowRequest(server.url)
    const signalledAt = Date.now()
    server.child.kill('SIGTERM')
    // the listener closes to new connections while the old request is still being served
    const refused = await waitFor(
      () =>
        fetch(`${server.url}/health`).then(
          () => undefined,
          (err: unknown) => err,
        ),
      5_000,
      'the listener to close',
    )
    expect(refused).toBeInstanceOf(Error)
    slow.finish()
    const response = await slow.response
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body)).toMatchObject({ code: 200 })

    expect(await server.exited).toBe(0)
    expect(Date.now() - signalledAt).toBeLessThan(10_000)
    expect(isProcessAlive(postmaster!.pid), server.output()).toBe(false)
    expect(await readPostmasterPid(path.join(root, 'pg'))).toBeUndefined()
    expect(server.output()).toContain('stock plan service stopped')
  })
})
