import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

function gitCommit(): string | undefined {
  try {
    return (
      execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || undefined
    )
  } catch {
    return undefined
  }
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

let cached: string | undefined

/** The code version written into builds and daily rows: package version plus the git commit when known. */
export function codeVersion(): string {
  if (cached === undefined) {
    const commit = process.env.STOCKPLAN_COMMIT ?? gitCommit()
    cached = commit ? `${packageVersion()}+${commit}` : packageVersion()
  }
  return cached
}
