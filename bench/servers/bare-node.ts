/**
 * The floor for a cached GET /plan: node:http sending a fixed Buffer (no per-request encoding), for
 * bench/cached-plan.bench.ts.  node --import tsx bench/servers/bare-node.ts <port> <body file>
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'

const [port, file] = process.argv.slice(2) as [string, string]
const body = readFileSync(file)
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }
http
  .createServer((_req, res) => {
    res.writeHead(200, headers)
    res.end(body)
  })
  .listen(Number(port), '127.0.0.1', () => process.send?.('listening'))
// a clean exit, so that --cpu-prof writes its profile
process.on('SIGTERM', () => process.exit(0))
