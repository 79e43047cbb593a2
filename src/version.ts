import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** Asked once: the code this process runs does not change while it runs, whatever the checkout does meanwhile. */
let askedGit: { commit: string | undefined } | undefined

function gitCommit(): string | undefined {
  askedGit ??= { commit: askGitForCommit() }
  return askedGit.commit
}

function askGitForCommit(): string | undefined {
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

/**
 * The code version written into builds and daily rows: package version plus the commit. Called explicitly by the
 * one process that needs it; `commit` (STOCKPLAN_COMMIT) spares the git call, and the scheduler hands its
 * resolved commit to its job processes so they never ask git.
 */
export function resolveCodeVersion(commit: string | undefined): { version: string; commit: string | undefined } {
  const resolved = commit ?? gitCommit()
  return { version: resolved ? `${packageVersion()}+${resolved}` : packageVersion(), commit: resolved }
}
