#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so `npx stockplan` works right after `npm ci` with no build step.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const compiled = join(root, 'dist', 'cli', 'main.js')
if (process.env.STOCKPLAN_USE_DIST === '1' && existsSync(compiled)) {
  await import(compiled)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import(join(root, 'src', 'cli', 'main.ts'))
}
