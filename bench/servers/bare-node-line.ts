/**
 * The floor for a cached GET /plan with the spec's access line: bench/servers/bare-node.ts plus one line per request
 * through the service's own logger (`createLogger`, info) and plan line writer (`planAccessLine`), with the plan
 * line's fields, for bench/cached-plan.bench.ts --line-off.
 *   node --import tsx bench/servers/bare-node-line.ts <port> <body file>
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { planAccessLine } from '../../src/http/plan-access-line.js'
import { createLogger } from '../../src/logger.js'

const [port, file] = process.argv.slice(2) as [string, string]
const body = readFileSync(file)
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }
const line = planAccessLine(createLogger({ logLevel: 'info' }), {
  date: '2026-01-01',
  regime: 'neutral',
  generated_at: '2026-01-01T00:00:00.000Z',
  plan_version: '2',
  top: 20,
  obs_top: 10,
  theme_cap: 5,
  plan_source: 'snapshot',
})
let requests = 0
http
  .createServer((req, res) => {
    const started = performance.now()
    res.writeHead(200, headers)
    res.end(body)
    requests = (requests + 1) & 0x7fffffff
    const seconds = (performance.now() - started) / 1000
    line({
      reqId: `req-${requests.toString(36)}`,
      client: req.socket.remoteAddress,
      cache: 'hit',
      format: 'json',
      status: 200,
      elapsed_s: Math.round(seconds * 1e6) / 1e6,
    })
  })
  .listen(Number(port), '127.0.0.1', () => process.send?.('listening'))
// a clean exit, so that --cpu-prof writes its profile
process.on('SIGTERM', () => process.exit(0))
