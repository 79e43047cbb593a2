import { readFileSync } from 'node:fs'

/** A live process: signal 0 reaches it and it is not a zombie waiting for a parent that never reaps it. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return process.platform !== 'linux'
  }
}
