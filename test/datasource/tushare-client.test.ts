/**
 * The tushare client against hostile servers on port 0 (issue 39): a redirect is not followed (the token would go
 * to the new host), a server that trickles bytes is stopped by the call's deadline (an injected clock: the test
 * says when the deadline passes), one that always answers `has_more` by the page cap, an oversize answer by the
 * byte cap, and rows outside what was asked are refused. Plus the settings that guard the token.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { classify, createTushareClient, type TushareClientOptions } from '../../src/datasource/tushare/client.js'
import { createLogger } from '../../src/logger.js'
import { jobEnvironment, syncEnvironment } from '../../src/scheduler/index.js'
import { testConfig } from '../support/config.js'

const TOKEN = 'tok-hostile-9c1d'
const servers: http.Server[] = []

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

function client(url: string, overrides: Partial<TushareClientOptions> = {}) {
  return createTushareClient({
    url,
    token: TOKEN,
    callsPerMinute: 0,
    rateLimits: {},
    fetch: globalThis.fetch,
    now: () => 0,
    sleep: async () => undefined,
    log: createLogger({ logLevel: 'silent' }),
    callTimeoutMs: 60_000,
    maxAnswerBytes: 1024 * 1024,
    maxPages: 5,
    ...overrides,
  })
}

const answer = (fields: string[], items: unknown[][], hasMore = false) =>
  JSON.stringify({ code: 0, msg: '', data: { fields, items, has_more: hasMore } })

describe('the tushare client on a hostile network', () => {
  it('does not follow a redirect: the token never reaches the other host', async () => {
    const bodies: string[] = []
    const elsewhere = await serve((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString()
      })
      req.on('end', () => {
        bodies.push(body)
        res.end(answer(['cal_date'], []))
      })
    })
    const url = await serve((_req, res) => {
      res.writeHead(307, { location: `${elsewhere}/steal` })
      res.end()
    })
    const signal = new AbortController().signal
    await expect(client(url).query('trade_cal', { exchange: 'SSE' }, signal)).rejects.toThrow(
      /tushare trade_cal: HTTP 307 redirect to http:\/\/127\.0\.0\.1:\d+\/steal not followed/,
    )
    expect(bodies).toEqual([])
  })

  it('stops a server that trickles its answer when the call deadline passes', async () => {
    let started: () => void = () => undefined
    const trickling = new Promise<void>((resolve) => {
      started = resolve
    })
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{')
      started()
      // and nothing more: the next byte would come 20 s later
    })
    const clock = new AbortController()
    const call = client(url, { callTimeoutMs: 30_000, deadline: () => clock.signal }).query(
      'trade_cal',
      {},
      new AbortController().signal,
    )
    await trickling
    clock.abort(new Error('30 s passed'))
    await expect(call).rejects.toThrow('tushare trade_cal: no whole answer within 30000 ms (TUSHARE_CALL_TIMEOUT_MS)')
  })

  it('stops an endless has_more at the page cap', async () => {
    let calls = 0
    const url = await serve((_req, res) => {
      calls++
      res.end(answer(['ts_code', 'con_code'], [['885800.TI', `${String(calls).padStart(6, '0')}.SZ`]], true))
    })
    await expect(
      client(url, { maxPages: 5 }).query('ths_member', { ts_code: '885800.TI' }, new AbortController().signal),
    ).rejects.toThrow('tushare ths_member: still more rows after 5 pages (TUSHARE_MAX_PAGES)')
    expect(calls).toBe(5)
  })

  it('refuses an answer past the byte cap', async () => {
    const url = await serve((_req, res) => {
      res.write(answer(['cal_date'], [[`${'9'.repeat(2 * 1024 * 1024)}`]]))
      res.end()
    })
    await expect(
      client(url, { maxAnswerBytes: 1024 * 1024 }).query('trade_cal', {}, new AbortController().signal),
    ).rejects.toThrow('tushare trade_cal: the answer is larger than 1048576 bytes (TUSHARE_MAX_ANSWER_BYTES)')
  })

  it('refuses rows of another day, of codes not asked for, and repeated keys, naming the interface', async () => {
    let items: unknown[][] = []
    const url = await serve((_req, res) => res.end(answer(['ts_code', 'trade_date', 'close'], items)))
    const c = client(url)
    const signal = new AbortController().signal
    items = [['000001.SZ', '20240116', 9.1]]
    await expect(c.once('daily', { trade_date: '20240117' }, signal)).rejects.toThrow(
      'tushare daily: a row has trade_date 20240116, not the 20240117 asked for',
    )
    items = [['600000.SH', '20240117', 9.1]]
    await expect(c.once('daily', { trade_date: '20240117', ts_code: '000001.SZ' }, signal)).rejects.toThrow(
      'tushare daily: a row is of 600000.SH, a code not asked for',
    )
    items = [
      ['000001.SZ', '20240117', 9.1],
      ['000001.SZ', '20240117', 9.2],
    ]
    await expect(c.once('daily', { trade_date: '20240117' }, signal)).rejects.toThrow(
      'tushare daily: a row repeats the key (ts_code, trade_date)',
    )
  })

  it('asks for the columns it needs by name', async () => {
    const asked: string[] = []
    const url = await serve((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString()
      })
      req.on('end', () => {
        asked.push((JSON.parse(body) as { fields: string }).fields)
        res.end(answer(['ts_code'], []))
      })
    })
    await client(url).query('stock_basic', { list_status: 'D' }, new AbortController().signal)
    expect(asked[0]!.split(',')).toEqual(expect.arrayContaining(['list_status', 'delist_date', 'exchange']))
  })

  it('reads a daily quota as a quota, not as a missing permission', () => {
    const quota = classify(
      'daily_basic',
      40203,
      '抱歉，您每天最多访问该接口20000次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。',
    )
    expect(quota.kind).toBe('quota')
    expect(quota.message).toMatch(
      /^tushare daily_basic: the daily quota of this interface is used up .*rerun after midnight/,
    )
    expect(classify('daily', 40203, '抱歉，您访问接口(daily)频率超限(5次/天)').kind).toBe('quota')
    expect(classify('daily', 40203, '抱歉，您没有接口访问权限，权限的具体详情访问：https://tushare.pro').kind).toBe(
      'permission',
    )
  })
})

describe('settings that guard the tushare token', () => {
  it('defaults to https and takes plain http only for this machine or with TUSHARE_ALLOW_HTTP', () => {
    expect(loadConfig({}).tushare.url).toBe('https://api.tushare.pro')
    expect(() => loadConfig({ TUSHARE_URL: 'http://api.tushare.pro' })).toThrow(
      /^TUSHARE_URL is plain http \(http:\/\/api\.tushare\.pro\/?\): the token would travel unencrypted; use https, or set TUSHARE_ALLOW_HTTP=1/,
    )
    expect(loadConfig({ TUSHARE_URL: 'http://api.tushare.pro', TUSHARE_ALLOW_HTTP: '1' }).tushare.url).toBe(
      'http://api.tushare.pro',
    )
    expect(loadConfig({ TUSHARE_URL: 'http://127.0.0.1:9000' }).tushare.url).toBe('http://127.0.0.1:9000')
    expect(loadConfig({}).tushare).toMatchObject({ reportWindowDays: 5, maxPages: 50, callTimeoutMs: 60_000 })
  })

  it('gives the token to the processes that sync only, not to build, plan or push-pool', () => {
    const config = testConfig({ TUSHARE_TOKEN: TOKEN })
    const env = jobEnvironment(config, 'postgres://x', { TUSHARE_TOKEN: TOKEN, PATH: '/bin' }, undefined)
    expect(env.TUSHARE_TOKEN).toBeUndefined()
    expect(syncEnvironment(config, env).TUSHARE_TOKEN).toBe(TOKEN)
  })
})
