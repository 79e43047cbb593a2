#!/usr/bin/env node
// Runs the compiled CLI (bin/cli-bundle.js) when it is up to date with src/, rebuilding it after an edit;
// falls back to running the TypeScript sources through tsx when esbuild cannot build it.
// STOCKPLAN_RUN=tsx forces tsx; STOCKPLAN_USE_DIST=1 runs `npm run build`'s dist/ (no dev dependencies needed).
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildBundle, fileUrl, freshBundle, ROOT } from './cli-bundle.js'

const compiled = join(ROOT, 'dist', 'cli', 'main.js')
if (process.env.STOCKPLAN_USE_DIST === '1' && existsSync(compiled)) {
  await import(fileUrl(compiled))
} else {
  let entry = process.env.STOCKPLAN_RUN === 'tsx' ? undefined : freshBundle()
  if (!entry && process.env.STOCKPLAN_RUN !== 'tsx') {
    try {
      mkdirSync(join(ROOT, 'dist', 'stockplan-cli'), { recursive: true })
      entry = await buildBundle()
    } catch {
      entry = undefined // no esbuild, or a source that does not compile: tsx reports it with its location
    }
  }
  if (entry) await import(fileUrl(entry))
  else {
    const { register } = await import('tsx/esm/api')
    register()
    await import(fileUrl(join(ROOT, 'src', 'cli', 'main.ts')))
  }
}
