#!/usr/bin/env node
// `npm run bench [-- name]`: runs every bench/*.bench.ts (or the named one) with tsx, one after another.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

const only = process.argv[2]
const benches = readdirSync('bench').filter((f) => f.endsWith('.bench.ts') && (!only || f.startsWith(only)))
for (const bench of benches) {
  console.log(`\n== ${bench}`)
  const result = spawnSync('npx', ['tsx', `bench/${bench}`, ...process.argv.slice(3)], { stdio: 'inherit' })
  if (result.status !== 0) process.exitCode = result.status ?? 1
}
