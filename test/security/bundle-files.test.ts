import { execFileSync } from 'node:child_process'
import { copyFile, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BundleFileRefused, openBundleFile } from '../../src/jobs/import/bundle-file.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { createLogger } from '../../src/logger.js'
import type { ImportFormat } from '../../src/storage/csv-formats.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { runCli } from '../support/cli-process.js'
import { failure } from '../support/queries.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const NATIVE = fileURLToPath(new URL('../data/import/native/', import.meta.url))
const SECRET = 'Store-Password-7f3Q9x'
const log = createLogger({ logLevel: 'silent' })

describe('bundle files: no links followed, no first line echoed', () => {
  let t: TestDatabase
  let root: string
  let secretFile: string
  beforeAll(async () => {
    t = await createTestDatabase()
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-bundle-links-'))
    secretFile = path.join(root, 'stockplan.password')
    await writeFile(secretFile, `${SECRET}\n`, { mode: 0o600 })
  })
  afterAll(async () => {
    await rm(root, { recursive: true, force: true })
    await t?.drop()
  })

  const runImport = (dir: string, format: ImportFormat = 'native') =>
    importDirectory(
      { imports: createImportStore(t.pool), log, progress: silentProgress },
      { dir, format },
      new AbortController().signal,
    )

  const securities = async (): Promise<number> =>
    Number((await t.pool.query<{ n: string }>('select count(*) as n from securities')).rows[0]!.n)

  it('`stockplan import` refuses a securities.csv that links to a secret, names the path and prints none of it', async () => {
    const dir = await mkdtemp(path.join(root, 'native-'))
    await copyFile(path.join(NATIVE, 'bars.csv'), path.join(dir, 'bars.csv'))
    await symlink(secretFile, path.join(dir, 'securities.csv'))
    const run = await runCli(['import', '--dir', dir], { DATABASE_URL: t.url }, { timeoutMs: 60_000 })
    expect(run.code).not.toBe(0)
    expect(run.output).toContain(`${path.join(dir, 'securities.csv')} is a symbolic link`)
    expect(run.output.toLowerCase()).not.toContain(SECRET.toLowerCase())
    expect(await securities()).toBe(0)
  }, 90_000)

  it('refuses a linked file of a tushare bundle before reading anything', async () => {
    const dir = await mkdtemp(path.join(root, 'tushare-'))
    await symlink(secretFile, path.join(dir, 'daily.csv'))
    const err = await failure(runImport(dir, 'tushare'))
    expect(err).toBeInstanceOf(BundleFileRefused)
    expect(err.message).toContain(path.join(dir, 'daily.csv'))
    expect(err.message.toLowerCase()).not.toContain(SECRET.toLowerCase())
  })

  it('opens with O_NOFOLLOW: a link swapped in after the directory was looked at is refused, not followed', async () => {
    const file = path.join(root, 'swapped.csv')
    await writeFile(file, 'code,name\n')
    await (await openBundleFile(file)).close()
    await unlink(file)
    await symlink(secretFile, file)
    const err = await failure(openBundleFile(file))
    expect(err).toBeInstanceOf(BundleFileRefused)
    expect(err.message).toContain(file)
  })

  it('opens a FIFO put in a file’s place without hanging, and refuses it', async () => {
    const fifo = path.join(root, 'fifo.csv')
    execFileSync('mkfifo', [fifo])
    const err = await failure(openBundleFile(fifo))
    expect(err.message).toBe(`${fifo} is not a regular file; import reads only regular files`)
  })

  it('quotes an unknown header only when it is a plain identifier, by its position otherwise', async () => {
    const dir = await mkdtemp(path.join(root, 'header-'))
    await writeFile(path.join(dir, 'securities.csv'), `code,${SECRET},foo,name\n600519.SH,x,y,z\n`)
    const err = await failure(runImport(dir))
    expect(err.message).toMatch(/^securities\.csv:1: unknown columns column 2 \(not a plain name\), "foo"; /)
    expect(err.message.toLowerCase()).not.toContain(SECRET.toLowerCase())
    expect(await securities()).toBe(0)
  })
})
