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
import { INTERFACES } from '../../src/datasource/tushare/interfaces.js'
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

const answer = (fields: readonly string[], items: unknown[][], hasMore = false) =>
  JSON.stringify({ code: 0, msg: '', data: { fields, items, has_more: hasMore } })

const DAILY = INTERFACES.daily!.fields
/** A daily row with every column asked for, priced at `close`. */
const bar = (code: string, date: string, close: number): unknown[] => [
  code,
  date,
  close,
  close,
  close,
  close,
  close,
  0,
  0,
  1000,
  1050,
]

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
      const name = [`${String(calls).padStart(6, '0')}.SZ`, 'old name', '20240101', null, '20240101', 'rename']
      res.end(answer(INTERFACES.namechange!.fields, [name], true))
    })
    await expect(client(url, { maxPages: 5 }).query('namechange', {}, new AbortController().signal)).rejects.toThrow(
      'tushare namechange: still more rows after 5 pages (TUSHARE_MAX_PAGES)',
    )
    expect(calls).toBe(5)
  })

  it("stops a board's members at two pages, more codes than the market lists, whatever TUSHARE_MAX_PAGES says", async () => {
    let calls = 0
    const url = await serve((_req, res) => {
      calls++
      const member = ['885800.TI', `${String(calls).padStart(6, '0')}.SZ`, 'N', null, null, null, 'Y']
      res.end(answer(INTERFACES.ths_member!.fields, [member], true))
    })
    await expect(
      client(url, { maxPages: 50 }).query('ths_member', { ts_code: '885800.TI' }, new AbortController().signal),
    ).rejects.toThrow('tushare ths_member: still more rows after 2 pages, more than a real answer of ths_member has')
    expect(calls).toBe(2)
  })

  it('refuses an answer past the byte cap', async () => {
    const url = await serve((_req, res) => {
      res.write(answer(['cal_date'], [[`${'9'.repeat(2 * 1024 * 1024)}`]]))
      res.end()
    })
    await expect(
      client(url, { maxAnswerBytes: 1024 * 1024 }).query('trade_cal', {}, new AbortController().signal),
    ).rejects.toThrow(
      'tushare trade_cal: the answer is larger than 1048576 bytes (TUSHARE_MAX_ANSWER_BYTES, all pages of one query together)',
    )
  })

  it('refuses rows of another day, of codes not asked for, and repeated keys, naming the interface', async () => {
    let items: unknown[][] = []
    const url = await serve((_req, res) => res.end(answer(DAILY, items)))
    const c = client(url)
    const signal = new AbortController().signal
    items = [bar('000001.SZ', '20240116', 9.1)]
    await expect(c.once('daily', { trade_date: '20240117' }, signal)).rejects.toThrow(
      'tushare daily: a row has trade_date 20240116, not the 20240117 asked for',
    )
    items = [bar('600000.SH', '20240117', 9.1)]
    await expect(c.once('daily', { trade_date: '20240117', ts_code: '000001.SZ' }, signal)).rejects.toThrow(
      'tushare daily: a row is of 600000.SH, a code not asked for',
    )
    items = [bar('000001.SZ', '20240117', 9.1), bar('000001.SZ', '20240117', 9.2)]
    await expect(c.once('daily', { trade_date: '20240117' }, signal)).rejects.toThrow(
      'tushare daily: a row repeats the key (ts_code, trade_date)',
    )
  })

  it('reads columns as the import does (trimmed, lower case), so a header written otherwise is still checked', async () => {
    let fields: readonly string[] = DAILY
    let items: unknown[][] = []
    const url = await serve((_req, res) => res.end(answer(fields, items)))
    const c = client(url)
    const signal = new AbortController().signal
    // the answer: TRADE_DATE, and a row of another day that would rewrite a stored bar
    fields = DAILY.map((f) => (f === 'trade_date' ? 'TRADE_DATE' : f))
    items = [bar('000001.SZ', '20240108', 9.1), bar('600519.SH', '20240102', 1.01)]
    await expect(c.once('daily', { trade_date: '20240108' }, signal)).rejects.toThrow(
      'tushare daily: a row has trade_date 20240102, not the 20240108 asked for',
    )
    // the benchmark's bars with TS_Code: a row of another index
    fields = INTERFACES.index_daily!.fields.map((f) => (f === 'ts_code' ? 'TS_Code' : f))
    items = [
      ['000300.SH', '20240108', 3300, 3290, 3310, 3280, 3290, 10, 0.3, 1e6, 1e7],
      ['000905.SH', '20240108', 5100, 5090, 5110, 5080, 5090, 10, 0.2, 1e6, 1e7],
    ]
    await expect(
      c.query('index_daily', { ts_code: '000300.SH', start_date: '20240108', end_date: '20240108' }, signal),
    ).rejects.toThrow('tushare index_daily: a row is of 000905.SH, a code not asked for')
    // the same header written otherwise but a whole answer of the day: taken, with the columns as asked
    fields = DAILY.map((f) => ` ${f.toUpperCase()} `)
    items = [bar('000001.SZ', '20240108', 9.1)]
    const taken = await c.once('daily', { trade_date: '20240108' }, signal)
    expect(taken.fields).toEqual(DAILY)
    expect(taken.items).toEqual(items)
  })

  it('refuses an answer whose columns are not the ones asked for, or a row of another width', async () => {
    let fields: readonly string[] = DAILY
    let items: unknown[][] = []
    const url = await serve((_req, res) => res.end(answer(fields, items)))
    const c = client(url)
    const signal = new AbortController().signal
    const cases: [readonly string[], unknown[][], RegExp][] = [
      // a column missing: the date check would have nothing to read
      [DAILY.filter((f) => f !== 'trade_date'), [], /^tushare daily: its columns \(.*\) are not the 11 asked for/],
      // one more column than asked
      [[...DAILY, 'Trade_Date'], [], /^tushare daily: its columns .* are not the 11 asked for/],
      // two columns that are one column once read as the import reads them
      [DAILY.map((f) => (f === 'amount' ? 'Close' : f)), [], /^tushare daily: its columns .* are not the 11 asked for/],
      [DAILY, [bar('000001.SZ', '20240108', 9.1).slice(0, 10)], /^tushare daily: a row has 10 values for 11 columns/],
      [DAILY, [[...bar('000001.SZ', '20240108', 9.1), '600519.SH']], /a row has 12 values for 11 columns/],
    ]
    for (const [f, rows, refusal] of cases) {
      fields = f
      items = rows
      await expect(c.once('daily', { trade_date: '20240108' }, signal)).rejects.toThrow(refusal)
    }
  })

  it('refuses a page holding more rows than the limit it was asked for', async () => {
    const limit = INTERFACES.stock_basic!.rowLimit
    let calls = 0
    const url = await serve((_req, res) => {
      calls++
      const rows = Array.from({ length: limit + 10 }, (_, i) => [
        `${600000 + i}.SH`,
        '',
        '',
        '',
        '',
        '',
        'SSE',
        'L',
        '',
        '',
      ])
      res.end(answer(INTERFACES.stock_basic!.fields, rows, true))
    })
    await expect(
      client(url, { maxPages: 50 }).query('stock_basic', { list_status: 'L' }, new AbortController().signal),
    ).rejects.toThrow(`tushare stock_basic: one call answered ${limit + 10} rows, more than the ${limit} it may`)
    expect(calls).toBe(1)
  })

  it('stops reading a page of millions of rows as it arrives, with has_more for ever: memory stays bounded', async () => {
    // 60 MiB of rows a page, though the limit asked is 6,000; made as they are read, so what the client does not
    // read is never made
    const page = 60 * 1024 * 1024
    let calls = 0
    let sent = 0
    const url = await serve((_req, res) => {
      calls++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write(
        '{"code":0,"msg":"","data":{"fields":["exchange","cal_date","is_open","pretrade_date"],"has_more":true,"items":[',
      )
      const rows = '["SSE","20240102",1,"20231229"],'.repeat(2048)
      const more = () => {
        while (sent < page) {
          sent += rows.length
          if (!res.write(rows)) return void res.once('drain', more)
        }
        res.end('["SSE","20240102",1,"20231229"]]}}')
      }
      res.on('close', () => res.removeAllListeners('drain'))
      more()
    })
    await expect(
      client(url, { maxAnswerBytes: 64 * 1024 * 1024, maxPages: 50 }).query(
        'trade_cal',
        { exchange: 'SSE' },
        new AbortController().signal,
      ),
    ).rejects.toThrow(
      'tushare trade_cal: the answer holds more than 6000 rows of 4 values, the most one call was asked for: refused as it arrived',
    )
    expect(calls).toBe(1)
    // what the sockets' buffers held when the client stopped reading, not the 60 MiB of the page
    expect(sent).toBeLessThan(page / 4)
  })

  it('refuses a query whose pages together pass the byte budget, each page within its limit', async () => {
    let calls = 0
    const url = await serve((_req, res) => {
      calls++
      // 400 KB a page of 5 name changes with long names, has_more for ever
      const rows = Array.from({ length: 5 }, (_, i) => [
        `${600000 + calls * 10 + i}.SH`,
        'x'.repeat(80_000),
        '20240101',
        null,
        '20240101',
        'rename',
      ])
      res.end(answer(INTERFACES.namechange!.fields, rows, true))
    })
    await expect(
      client(url, { maxAnswerBytes: 1024 * 1024, maxPages: 50 }).query('namechange', {}, new AbortController().signal),
    ).rejects.toThrow(
      'tushare namechange: the answer is larger than 1048576 bytes (TUSHARE_MAX_ANSWER_BYTES, all pages of one query together)',
    )
    expect(calls).toBe(3)
  })

  it("shows tushare's msg bounded and with its control characters escaped, never as terminal sequences", async () => {
    const msg = `\u001b]0;pwned\u0007\u001b[2J\u001b[31m抱歉\r\n{"level":50,"msg":"forged"}\u202e${'长'.repeat(5000)}`
    const url = await serve((_req, res) => res.end(JSON.stringify({ code: 40203, msg, data: null })))
    const failure = await client(url)
      .query('trade_cal', { exchange: 'SSE' }, new AbortController().signal)
      .catch((err: Error) => err)
    expect(failure).toBeInstanceOf(Error)
    const text = (failure as Error).message
    expect(text).toMatch(
      /^tushare trade_cal: code 40203: \\u\{1b\}\]0;pwned\\u\{7\}\\u\{1b\}\[2J\\u\{1b\}\[31m抱歉\\u\{d\}\\u\{a\}\{"level"/,
    )
    expect(text).toContain('\\u{202e}')
    expect(text).toMatch(/… \(\d+ more characters\)$/)
    expect(text.length).toBeLessThan(400)
    expect(/[\p{Cc}\p{Cf}]/u.test(text)).toBe(false)
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
        res.end(answer(INTERFACES.stock_basic!.fields as string[], []))
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
    // loopback only as an IP literal: 127.0.0.0/8 or ::1, never a name, however it begins
    for (const local of ['http://127.0.0.2:9000', 'http://[::1]:9000', 'http://127.1:9000']) {
      expect(loadConfig({ TUSHARE_URL: local }).tushare.url).toBe(local)
    }
    for (const named of ['http://127.evil.example', 'http://127.0.0.1.nip.io:9000', 'http://localhost:9000']) {
      expect(() => loadConfig({ TUSHARE_URL: named })).toThrow(/^TUSHARE_URL is plain http .*TUSHARE_ALLOW_HTTP=1/)
    }
    expect(loadConfig({}).tushare).toMatchObject({ reportWindowDays: 5, maxPages: 50, callTimeoutMs: 60_000 })
  })

  it('gives the token to the processes that sync only, not to build, plan or push-pool', () => {
    const config = testConfig({ TUSHARE_TOKEN: TOKEN })
    const env = jobEnvironment(config, 'postgres://x', { TUSHARE_TOKEN: TOKEN, PATH: '/bin' }, undefined)
    expect(env.TUSHARE_TOKEN).toBeUndefined()
    expect(syncEnvironment(config, env).TUSHARE_TOKEN).toBe(TOKEN)
  })
})
