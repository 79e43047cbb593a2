import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { resolveCodeVersion } from '../src/version.js'

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
const home = process.cwd()

describe('the code version', () => {
  afterEach(() => process.chdir(home))

  it("names the package version and the checkout's commit, asked of git once per process", () => {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim()
    expect(resolveCodeVersion(undefined)).toEqual({ version: `${pkg.version}+${head}`, commit: head })
    // from a directory outside any checkout git would answer nothing: the process's code is still the same
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'stockplan-no-git-'))
    try {
      process.chdir(elsewhere)
      expect(resolveCodeVersion(undefined)).toEqual({ version: `${pkg.version}+${head}`, commit: head })
    } finally {
      process.chdir(home)
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('takes a given commit (STOCKPLAN_COMMIT) without asking git', () => {
    expect(resolveCodeVersion('abc1234')).toEqual({ version: `${pkg.version}+abc1234`, commit: 'abc1234' })
  })
})
