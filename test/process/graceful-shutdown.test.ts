import { chmod, mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isProcessAlive, readPostmasterPid } from '../../src/storage/embedded-postgres.js'
import { startServerProcess } from '../support/server-process.js'

const TOKEN = 'shutdown-test-token'

/** Sends headers and half a body, so the request is in flight until `finish` is called. */
function startSlowRequest(url: string): { finish: () => void; response: Promise<{ status: number; body: string }> } {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  const body = '{"jobId":1}'
  socket.write(
    `POST /api/v1/xxljob/idleBeat HTTP/1.1\r\nHost: ${hostname}\r\nXXL-JOB-ACCESS-TOKEN: ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  )
  let raw = ''
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    socket.on('data', (c) => {
      raw += c.toString()
    })
    socket.on('error', reject)
    socket.on('close', () => resolve({ status: Number(raw.split(' ')[1]), body: raw.split('\r\n\r\n')[1] ?? '' }))
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

    const slow = startSlowRequest(server.url)
    await new Promise((r) => setTimeout(r, 200))
    const signalledAt = Date.now()
    server.child.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 500))
    // the listener is closed to new connections while the old request is still being served
    await expect(fetch(`${server.url}/health`)).rejects.toThrow()
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
