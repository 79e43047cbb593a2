/**
 * Files the service trusts are its own: a PLAN_DATA_DIR (or PG_DATA_DIR) another user could write into stops the
 * start, naming the path, the owner, the mode and the fix; a symlinked snapshot is refused, and a snapshot that
 * does not parse is reported without quoting what it holds.
 */
import { execFile } from 'node:child_process'
import { chmod, chown, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { startEmbeddedPostgres } from '../../src/storage/embedded-postgres.js'
import { createPlanFiles, parseSnapshot } from '../../src/storage/plan-files.js'
import { runCli } from '../support/cli-process.js'

const run = promisify(execFile)
/** A dead store address: if the directory check did not stop the start, the error would name the database. */
const NO_STORE = 'postgres://postgres@127.0.0.1:1/none'
const DATE = '2026-01-05'

describe('trusted directories and files', () => {
  let root: string

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-trust-files-'))
  })
  afterAll(async () => {
    await rm(root, { recursive: true, force: true })
  })

  async function planDir(name: string): Promise<string> {
    const dir = path.join(root, name)
    await mkdir(path.join(dir, 'snapshots'), { recursive: true, mode: 0o755 })
    await chmod(dir, 0o755)
    return dir
  }

  it('a group-writable PLAN_DATA_DIR stops the start with exit 1, naming path, owner, mode and fix', async () => {
    const dir = await planDir('group-writable')
    await chmod(dir, 0o775)
    const exit = await runCli(['serve'], { PLAN_DATA_DIR: dir, DATABASE_URL: NO_STORE, PORT: '0' })
    expect(exit.code).toBe(1)
    expect(exit.output).toContain(`PLAN_DATA_DIR=${dir} is writable by its group (mode 0775, owner root (uid 0))`)
    expect(exit.output).toContain(`chmod go-w ${dir}`)
    expect(exit.output).not.toMatch(/database|DATABASE_URL/)
  })

  it("refuses another user's directory and a symlinked plans/ the same way, for CLI commands too", async () => {
    const foreign = await planDir('foreign')
    const nobody = Number((await run('id', ['-u', 'nobody'])).stdout.trim())
    await chown(foreign, nobody, nobody)
    const owned = await runCli(['plan'], { PLAN_DATA_DIR: foreign, DATABASE_URL: NO_STORE })
    expect(owned.code).toBe(1)
    expect(owned.output).toMatch(new RegExp(`PLAN_DATA_DIR=${foreign} is owned by nobody \\(uid ${nobody}\\).*chown`))

    const linked = await planDir('linked')
    await symlink(await mkdtemp(path.join(os.tmpdir(), 'stockplan-elsewhere-')), path.join(linked, 'plans'))
    const exit = await runCli(['serve'], { PLAN_DATA_DIR: linked, DATABASE_URL: NO_STORE, PORT: '0' })
    expect(exit.code).toBe(1)
    expect(exit.output).toContain(`${path.join(linked, 'plans')} (under PLAN_DATA_DIR) is a symbolic link`)
  })

  it('a world-writable PG_DATA_DIR stops the embedded database before it starts', async () => {
    const dir = path.join(root, 'pg-open')
    await mkdir(dir, { mode: 0o777 })
    await chmod(dir, 0o777)
    await expect(startEmbeddedPostgres(dir, createLogger({ logLevel: 'silent' }))).rejects.toThrow(
      `PG_DATA_DIR=${dir} is writable by every user (mode 0777`,
    )
  })

  it('refuses a snapshot that is a symbolic link, and never quotes a file it cannot parse', async () => {
    const dir = await planDir('snapshots-linked')
    const secret = path.join(root, 'shadow')
    await writeFile(secret, 'root:*:19000:0:99999:7:::\n')
    await symlink(secret, path.join(dir, 'snapshots', `${DATE}.json`))
    const files = createPlanFiles(dir)
    expect(await files.readSnapshot(DATE)).toEqual({ ok: false, reason: 'a symbolic link, refused' })

    const unparsable = parseSnapshot('root:*:19000:0:99999:7:::\n', DATE)
    expect(unparsable.ok).toBe(false)
    expect(JSON.stringify(unparsable)).not.toContain('root')
    expect(JSON.stringify(unparsable)).toMatch(/corrupt JSON/)
  })
})
