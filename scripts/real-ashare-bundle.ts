/**
 * Turns the real A-share development set (shared/data/real-ashare-2024-2025: bars.tar.xz, csi300.csv) into a
 * tushare bundle that `stockplan import --format tushare --dir OUT` loads:
 *
 *   npx tsx scripts/real-ashare-bundle.ts --out DIR [--codes N] [--source DIR]
 *
 * - daily.csv: the set's forward-adjusted bars; pre_close = the code's previous close (empty on its first bar);
 *   `amount` is ESTIMATED as vol x 100 x the day's close / 1000 (thousand yuan): the set has no traded value,
 *   and with forward-adjusted prices the estimate is low before an ex-rights day by the adjustment ratio, a ratio
 *   only known after the day (no point-in-time estimate exists without the traded prices or the factors).
 * - adj_factor.csv: 1 on every bar (the prices are already adjusted; another factor would adjust twice).
 * - stock_basic.csv: the codes with bars, from stocklist.csv; list_status L; list_date = the first bar date
 *   when it falls after the set's first trading day, else empty (listed before the window: date unknown).
 * - trade_cal.csv: SSE, every calendar day from the first to the last bar date; open = a day with a bar (of
 *   any code of the set, so `--codes N` keeps the full market's calendar).
 * - index_daily.csv: 000300.SH from csi300.csv inside the calendar's range; amount yuan / 1000 -> thousand yuan.
 * No namechange/stock_st: stocklist names carry ST/*ST as of 2025-11-21 only, not for earlier dates.
 * No suspend_d, daily_basic, stk_limit, fina_indicator: the set has none of them.
 * `--codes N` keeps the first N codes (in code order) that have bars, for small samples. Progress on stderr.
 */
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** The development set beside the checkout (`../shared/data`), as the workplace lays it out. */
const DEFAULT_SOURCE = path.resolve(REPO_ROOT, '..', 'shared', 'data', 'real-ashare-2024-2025')

interface Options {
  readonly out: string
  readonly source: string
  readonly codes: number | null
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      codes: { type: 'string' },
      source: { type: 'string', default: DEFAULT_SOURCE },
    },
  })
  if (!values.out) fail('--out DIR is required (a directory outside the repository)')
  const out = path.resolve(values.out)
  if (out === REPO_ROOT || out.startsWith(`${REPO_ROOT}${path.sep}`)) {
    fail(`--out ${out} is inside the repository: real data must not be committed; choose a directory elsewhere`)
  }
  let codes: number | null = null
  if (values.codes !== undefined) {
    codes = Number(values.codes)
    if (!Number.isInteger(codes) || codes < 1) fail(`--codes ${values.codes}: give a whole number of codes >= 1`)
  }
  return { out, source: path.resolve(values.source), codes }
}

function fail(message: string): never {
  process.stderr.write(`real-ashare-bundle: ${message}\n`)
  process.exit(1)
}

const say = (message: string): void => {
  process.stderr.write(`${message}\n`)
}

const compact = (iso: string): string => iso.replaceAll('-', '')
const round = (value: number, places: number): string => String(Number(value.toFixed(places)))

function exchangeOf(code: string): { suffix: string; exchange: string; market: string } {
  if (code.startsWith('688') || code.startsWith('689')) return { suffix: 'SH', exchange: 'SSE', market: '科创板' }
  if (code.startsWith('6') || code.startsWith('9')) return { suffix: 'SH', exchange: 'SSE', market: '主板' }
  if (code.startsWith('30')) return { suffix: 'SZ', exchange: 'SZSE', market: '创业板' }
  if (code.startsWith('0') || code.startsWith('2')) return { suffix: 'SZ', exchange: 'SZSE', market: '主板' }
  return { suffix: 'BJ', exchange: 'BSE', market: '北交所' }
}

/** Minimal CSV split: the set's files quote nothing (names hold no commas); a quoted field is refused. */
function fields(line: string, where: string): string[] {
  if (line.includes('"')) fail(`${where}: quoted fields are not expected in this set`)
  return line.split(',')
}

async function* dataLines(file: string): AsyncGenerator<string[]> {
  const lines = readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY })
  let lineNo = 0
  for await (const line of lines) {
    lineNo++
    if (lineNo === 1 || line === '') continue
    yield fields(line, `${file}:${lineNo}`)
  }
}

async function extractBars(source: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'real-ashare-'))
  say(`extracting ${path.join(source, 'bars.tar.xz')} into ${dir} ...`)
  await new Promise<void>((resolve, reject) => {
    const tar = spawn('tar', ['-xJf', path.join(source, 'bars.tar.xz'), '-C', dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    tar.on('error', reject)
    tar.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code}`))))
  })
  return dir
}

interface StockListEntry {
  readonly tsCode: string
  readonly name: string
  readonly area: string
  readonly industry: string
}

async function readStockList(file: string): Promise<Map<string, StockListEntry>> {
  const bySymbol = new Map<string, StockListEntry>()
  for await (const [tsCode, symbol, name, area, industry] of dataLines(file)) {
    bySymbol.set(symbol!, { tsCode: tsCode!, name: name ?? '', area: area ?? '', industry: industry ?? '' })
  }
  return bySymbol
}

/** Every file's first data line, for the set's first trading day and which codes have bars at all. */
async function firstBarDates(dataDir: string): Promise<Map<string, string>> {
  const first = new Map<string, string>()
  for (const name of (await readdir(dataDir)).filter((n) => n.endsWith('.csv')).sort()) {
    const text = await readFile(path.join(dataDir, name), 'utf8')
    const second = text.split('\n', 2)[1]
    if (second) first.set(name.slice(0, -4), second.slice(0, 10))
  }
  return first
}

function writer(file: string, header: string): { line(text: string): Promise<void>; close(): Promise<void> } {
  const stream: WriteStream = createWriteStream(file)
  stream.write(`${header}\n`)
  return {
    line: (text) =>
      stream.write(`${text}\n`) ? Promise.resolve() : new Promise((resolve) => stream.once('drain', resolve)),
    close: () => new Promise((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve()))),
  }
}

async function writeBars(
  dataDir: string,
  codes: readonly string[],
  stockList: Map<string, StockListEntry>,
  out: string,
): Promise<number> {
  const daily = writer(
    path.join(out, 'daily.csv'),
    'ts_code,trade_date,open,high,low,close,pre_close,change,pct_chg,vol,amount',
  )
  const adj = writer(path.join(out, 'adj_factor.csv'), 'ts_code,trade_date,adj_factor')
  let rows = 0
  const started = Date.now()
  for (const [index, code] of codes.entries()) {
    const tsCode = stockList.get(code)?.tsCode ?? `${code}.${exchangeOf(code).suffix}`
    let previousClose: number | null = null
    for await (const [date, open, close, high, low, volume] of dataLines(path.join(dataDir, `${code}.csv`))) {
      const closeValue = Number(close)
      const vol = Number(volume)
      const day = compact(date!)
      const pre = previousClose === null ? '' : String(previousClose)
      const change = previousClose === null ? '' : round(closeValue - previousClose, 4)
      const pct = previousClose ? round(((closeValue - previousClose) / previousClose) * 100, 4) : ''
      const amount = round((vol * 100 * closeValue) / 1000, 3)
      await daily.line(`${tsCode},${day},${open},${high},${low},${close},${pre},${change},${pct},${volume},${amount}`)
      await adj.line(`${tsCode},${day},1`)
      previousClose = closeValue
      rows++
    }
    if ((index + 1) % 250 === 0 || index + 1 === codes.length) {
      const seconds = (Date.now() - started) / 1000
      say(`bars: ${index + 1}/${codes.length} codes, ${rows.toLocaleString('en')} rows (${seconds.toFixed(1)} s)`)
    }
  }
  await daily.close()
  await adj.close()
  return rows
}

async function writeStockBasic(
  codes: readonly string[],
  stockList: Map<string, StockListEntry>,
  firstDates: Map<string, string>,
  windowStart: string,
  out: string,
): Promise<void> {
  const file = writer(
    path.join(out, 'stock_basic.csv'),
    'ts_code,symbol,name,area,industry,market,exchange,list_status,list_date,delist_date',
  )
  for (const code of codes) {
    const { suffix, exchange, market } = exchangeOf(code)
    const entry = stockList.get(code)
    const first = firstDates.get(code)!
    const listDate = first > windowStart ? compact(first) : ''
    await file.line(
      `${entry?.tsCode ?? `${code}.${suffix}`},${code},${entry?.name ?? ''},${entry?.area ?? ''},${entry?.industry ?? ''},${market},${exchange},L,${listDate},`,
    )
  }
  await file.close()
}

async function writeTradeCal(openDays: ReadonlySet<string>, out: string): Promise<{ first: string; last: string }> {
  const sorted = [...openDays].sort()
  const first = sorted[0]!
  const last = sorted.at(-1)!
  const file = writer(path.join(out, 'trade_cal.csv'), 'exchange,cal_date,is_open,pretrade_date')
  const toDate = (d: string) => Date.UTC(Number(d.slice(0, 4)), Number(d.slice(4, 6)) - 1, Number(d.slice(6, 8)))
  let previousOpen = ''
  for (let t = toDate(first); t <= toDate(last); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10).replaceAll('-', '')
    const open = openDays.has(day)
    await file.line(`SSE,${day},${open ? 1 : 0},${previousOpen}`)
    if (open) previousOpen = day
  }
  await file.close()
  return { first, last }
}

async function writeIndexDaily(source: string, range: { first: string; last: string }, out: string): Promise<number> {
  const file = writer(
    path.join(out, 'index_daily.csv'),
    'ts_code,trade_date,close,open,high,low,pre_close,change,pct_chg,vol,amount',
  )
  let previousClose: number | null = null
  let rows = 0
  for await (const [date, open, close, high, low, volume, amount] of dataLines(path.join(source, 'csi300.csv'))) {
    const day = compact(date!)
    const closeValue = Number(close)
    if (day >= range.first && day <= range.last) {
      const pre = previousClose === null ? '' : String(previousClose)
      const change = previousClose === null ? '' : round(closeValue - previousClose, 4)
      const pct = previousClose ? round(((closeValue - previousClose) / previousClose) * 100, 4) : ''
      const thousandYuan = round(Number(amount) / 1000, 3)
      await file.line(
        `000300.SH,${day},${close},${open},${high},${low},${pre},${change},${pct},${volume},${thousandYuan}`,
      )
      rows++
    }
    previousClose = closeValue
  }
  await file.close()
  return rows
}

const BUNDLE_README = `# Tushare bundle made from the real A-share development set

Made by \`scripts/real-ashare-bundle.ts\` of the stockplan repository; load with
\`stockplan import --format tushare --dir <this directory>\`.

- daily.csv: forward-adjusted bars (tushare qfq as of 2025-11-21); \`vol\` in lots.
  **\`amount\` is estimated**: vol x 100 x the day's (adjusted) close / 1000, in thousand yuan. The set has no
  traded value; before an ex-rights day the estimate is low by the adjustment ratio, which is known only after
  the day (future corporate actions leak into liquidity and size).
- adj_factor.csv: 1 on every bar (prices already adjusted).
- stock_basic.csv: list_status L; list_date = first bar date when after the set's first day, else empty.
- trade_cal.csv: open days = the union of the set's bar dates.
- index_daily.csv: 000300.SH; amount converted from yuan to thousand yuan.
- No ST history (namechange/stock_st): the set's names are those of 2025-11-21 only. No suspensions,
  valuations, price limits or financial reports. Survivorship: codes delisted in 2024-2025 are absent.
`

async function main(): Promise<void> {
  const options = readOptions()
  const started = Date.now()
  await mkdir(options.out, { recursive: true })
  const extracted = await extractBars(options.source)
  try {
    const dataDir = path.join(extracted, 'data')
    const stockList = await readStockList(path.join(extracted, 'stocklist.csv'))
    const firstDates = await firstBarDates(dataDir)
    const allCodes = [...firstDates.keys()].sort()
    const windowStart = [...firstDates.values()].sort()[0]!
    const codes = options.codes === null ? allCodes : allCodes.slice(0, options.codes)
    say(`${allCodes.length} codes have bars (from ${windowStart}); writing ${codes.length} to ${options.out}`)
    const rows = await writeBars(dataDir, codes, stockList, options.out)
    // The calendar is the whole set's, even for a sample: read every file's dates (cheap next to the bars).
    const openDays = new Set<string>()
    for (const code of allCodes) {
      for await (const [date] of dataLines(path.join(dataDir, `${code}.csv`))) openDays.add(compact(date!))
    }
    await writeStockBasic(codes, stockList, firstDates, windowStart, options.out)
    const range = await writeTradeCal(openDays, options.out)
    const indexRows = await writeIndexDaily(options.source, range, options.out)
    await writeFile(path.join(options.out, 'README.md'), BUNDLE_README)
    say(
      `done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${codes.length} codes, ${rows.toLocaleString('en')} bars ` +
        `and as many adj_factor rows (all 1), ${openDays.size} trading days ${range.first}..${range.last}, ` +
        `${indexRows} index bars (000300.SH).`,
    )
    say('note: daily.csv amount is ESTIMATED as vol x 100 x close / 1000 thousand yuan (the set has no traded value).')
  } finally {
    await rm(extracted, { recursive: true, force: true })
  }
}

await main()
