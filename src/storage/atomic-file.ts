import { randomBytes } from 'node:crypto'
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { isProcessAlive } from './process-alive.js'

const TEMP = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/

/** Removes temp files left by writers that died mid-write (kill -9); a live writer's temp file is kept. */
export async function sweepStaleTemps(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const stale = names.filter((name) => {
    const match = TEMP.exec(name)
    return match !== null && !isProcessAlive(Number(match[2]))
  })
  await Promise.all(stale.map((name) => rm(path.join(dir, name), { force: true })))
  return stale
}

/**
 * Writes `data` so that readers see the old file or the whole new one, never a torn one, even after a crash:
 * write a temp file in the same folder, fsync it, rename it over the target, fsync the folder.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file)
  await mkdir(dir, { recursive: true })
  await sweepStaleTemps(dir)
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const handle = await open(temp, 'w', 0o644)
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (err) {
    await rm(temp, { force: true })
    throw err
  }
  const dirHandle = await open(dir, 'r')
  try {
    await dirHandle.sync()
  } finally {
    await dirHandle.close()
  }
}
