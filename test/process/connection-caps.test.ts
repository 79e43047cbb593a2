/**
 * The connection caps of a real server process under a low descriptor limit (`ulimit -n 256`), against clients that
 * would hold them: idle keep-alive connections at an address's cap, keep-alive and one-byte connections filling the
 * overall cap, and a storm of new connections over it. The PMS's `GET /plan` comes from the holder's own address
 * (behind the same NAT) and from another, and is answered each time, from the snapshot; the process never runs out
 * of descriptors for its store and files.
 */
import { readdirSync } from 'node:fs'
import net from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { OVER_CAP_BUDGET } from '../../src/http/connection-limits.js'
import { defaultMaxConnections, descriptorReserve } from '../../src/http/descriptor-limit.js'
import { DEFAULT_POOL_MAX } from '../../src/storage/db.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { type KeptAlive, keepAlive, rawRequest } from '../support/raw-http.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import type { TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'

const DESCRIPTOR_LIMIT = 256
const PER_CLIENT = 40
// XXLJOB_MAX_RUNNING's default: the reserve the server derives its cap with
const CAP = defaultMaxConnections(DESCRIPTOR_LIMIT, descriptorReserve({ children: 2 }))
/** Files a plan request may open at once, and then some: what must stay free beside the whole pool. */
const FILES_ROOM = 16

/** `count` connections spread over loopback addresses from `firstHost` on, at most PER_CLIENT each. */
const addresses = (count: number, firstHost: number): string[] =>
  Array.from({ length: count }, (_, i) => `127.0.0.${firstHost + Math.floor(i / PER_CLIENT)}`)

function openSocket(port: number, from: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from })
    socket.on('error', () => undefined) // a connection closed to make room is what some tests expect
    socket.once('connect', () => resolve(socket))
    socket.once('error', reject)
  })
}

describe(`connection caps of a server process with ${DESCRIPTOR_LIMIT} descriptors`, () => {
  let t: TestDatabase
  let demo: DemoMarket
  let server: ServerProcess
  let port: number
  const held: Array<net.Socket | KeptAlive> = []
  const latest = (): string => demo.planned.at(-1)!
  const openDescriptors = (): number => readdirSync(`/proc/${server.child.pid}/fd`).length

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase()
    server = await startServerProcess(
      {
        DATABASE_URL: t.url,
        PLAN_DATA_DIR: demo.planDataDir,
        HTTP_FIRST_BYTE_TIMEOUT_MS: '60000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000',
        HTTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
        // HTTP_MAX_CONNECTIONS unset: derived from the descriptor limit
      },
      60_000,
      { descriptorLimit: DESCRIPTOR_LIMIT },
    )
    port = Number(new URL(server.url).port)
  })
  afterEach(async () => {
    const sockets = held.splice(0).map((h) => ('socket' in h ? h.socket : h))
    for (const socket of sockets) socket.destroy()
    await waitFor(() => sockets.every((s) => s.closed), 5_000, 'the held connections to close')
  })
  afterAll(async () => {
    server?.child.kill('SIGKILL')
    await demo?.cleanup()
    await t?.drop()
  })

  /** The PMS's morning call on a fresh connection from `from`: 200 with the latest plan, read from its snapshot. */
  async function expectPlanFor(from: string): Promise<void> {
    const plan = await rawRequest(port, 'GET /plan HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', from)
    expect(plan.status, `GET /plan from ${from}: ${plan.body.slice(0, 200)}`).toBe(200)
    expect((JSON.parse(plan.body) as { date?: string }).date).toBe(latest())
  }

  /** A keep-alive connection from `from` that has been used once and now idles. */
  async function idleKeptAlive(from: string): Promise<KeptAlive> {
    const connection = await keepAlive(port, from)
    held.push(connection)
    expect((await connection.get('/health')).status).toBe(200)
    return connection
  }

  it("keeps the PMS at the holder's address in while the holder's idle keep-alive connections fill that address's cap", async () => {
    const holder = []
    for (let i = 0; i < PER_CLIENT; i++) holder.push(await idleKeptAlive('127.0.0.2'))
    await expectPlanFor('127.0.0.2')
    await expectPlanFor('127.0.0.3')
    // one of the holder's, the oldest, made room; the rest are still served
    expect(holder.filter((c) => c.closed())).toHaveLength(1)
    expect((await holder.at(-1)!.get('/health')).status).toBe(200)
  })

  it("keeps the PMS in while 300 sockets that never sent a byte are open from the PMS's own address", async () => {
    for (let i = 0; i < 300; i++) held.push(await openSocket(port, '127.0.0.2'))
    await expectPlanFor('127.0.0.2')
    await expectPlanFor('127.0.0.3')
  })

  it('keeps the PMS in while idle keep-alive, then one-byte, connections fill the overall cap', async () => {
    expect(CAP).toBeLessThan(DESCRIPTOR_LIMIT - DEFAULT_POOL_MAX - FILES_ROOM)
    for (const from of addresses(CAP, 10)) await idleKeptAlive(from)
    await expectPlanFor('127.0.0.2') // another address
    await expectPlanFor('127.0.0.10') // a holder's
    for (const from of addresses(CAP, 30)) {
      const socket = await openSocket(port, from)
      held.push(socket)
      socket.write('G')
    }
    await expectPlanFor('127.0.0.2')
    await expectPlanFor('127.0.0.30')
  })

  it('answers the PMS from the snapshot through a storm of new connections at the cap, and never runs short of descriptors', async () => {
    // held first, so that the storm makes room by closing these, the oldest idle ones
    const holders = addresses(CAP - 2, 10)
    for (const from of holders) await idleKeptAlive(from)
    const pms = await keepAlive(port, holders.at(-1)!) // a holder's address, under its cap
    held.push(pms)
    expect((await pms.get('/plan')).status).toBe(200)
    let most = openDescriptors()
    const sampler = setInterval(() => {
      most = Math.max(most, openDescriptors())
    }, 5)
    try {
      // 400 connections from 4 addresses as fast as they open, 100 each (over the per-client cap of 40)
      const storm = await Promise.all(
        Array.from({ length: 400 }, (_, i) => openSocket(port, `127.0.0.${50 + (i % 4)}`).catch(() => undefined)),
      )
      for (const socket of storm) if (socket) held.push(socket)
      for (let i = 0; i < 4; i++) {
        const plan = await pms.get('/plan?nocache=1')
        expect(plan.status, plan.body.slice(0, 200)).toBe(200)
        expect((JSON.parse(plan.body) as { plan_source?: string }).plan_source).toBe('snapshot')
      }
      await expectPlanFor('127.0.0.2')
    } finally {
      clearInterval(sampler)
    }
    // room was left all along for the whole pool and the files a request opens
    expect(most).toBeLessThanOrEqual(DESCRIPTOR_LIMIT - DEFAULT_POOL_MAX - FILES_ROOM)
    expect(most).toBeLessThanOrEqual(CAP + OVER_CAP_BUDGET + 40)
    expect(server.output()).not.toMatch(/EMFILE|unreadable/)
  })
})
