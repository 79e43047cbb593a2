/**
 * Fastify's own floor for a cached GET /plan: one route sending a fixed Buffer, no logger, no hooks, for
 * bench/cached-plan.bench.ts.  node --import tsx bench/servers/bare-fastify.ts <port> <body file>
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const [port, file] = process.argv.slice(2) as [string, string]
const body = readFileSync(file)
const app = Fastify({ logger: false })
app.get('/plan', (_req, reply) => {
  reply.type('application/json; charset=utf-8').send(body)
})
await app.listen({ port: Number(port), host: '127.0.0.1' })
process.send?.('listening')
// a clean exit, so that --cpu-prof writes its profile
process.on('SIGTERM', () => process.exit(0))
