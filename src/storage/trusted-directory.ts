import { lstat, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { StartupError } from './startup-errors.js'

/** Subdirectories of PLAN_DATA_DIR whose files the service serves or writes. */
export const PLAN_SUBDIRECTORIES = ['snapshots', 'plans', 'pool'] as const

const octal = (mode: number): string => `0${(mode & 0o7777).toString(8)}`

async function userName(uid: number): Promise<string> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '')
  const line = passwd.split('\n').find((l) => l.split(':')[2] === String(uid))
  return line ? `${line.split(':')[0]} (uid ${uid})` : `uid ${uid}`
}

/**
 * A directory whose files the service trusts (snapshots it serves, plan files it rewrites, the database) must be
 * its own: owned by this user, root or one of `owners`, writable by nobody else, and its subdirectories real
 * directories (a symlink at `plans/` would send writes elsewhere). Otherwise the start stops with the path, the
 * owner, the mode and the fix. A path that does not exist yet is created by the service later, so it passes.
 */
export async function checkTrustedDirectory(
  setting: string,
  dir: string,
  options: { subdirectories?: readonly string[]; owners?: readonly number[] } = {},
): Promise<void> {
  const self = process.getuid?.()
  if (self === undefined) return
  const owners = new Set([self, 0, ...(options.owners ?? [])])
  const checked: { at: string; linked: boolean }[] = [{ at: dir, linked: false }]
  for (const sub of options.subdirectories ?? []) checked.push({ at: path.join(dir, sub), linked: true })
  for (const { at, linked } of checked) {
    const info = await (linked ? lstat(at) : stat(at)).catch(() => undefined)
    if (info === undefined) continue
    const where = at === dir ? `${setting}=${dir}` : `${at} (under ${setting})`
    if (info.isSymbolicLink())
      throw new StartupError(
        `${where} is a symbolic link; the service writes and serves files there, so it must be a real directory: ` +
          `replace the link with a directory owned by this user`,
      )
    if (!info.isDirectory()) continue
    const owner = await userName(info.uid)
    if (!owners.has(info.uid))
      throw new StartupError(
        `${where} is owned by ${owner}, not by the service's user (uid ${self}), mode ${octal(info.mode)}: ` +
          `that user could plant files the service trusts; run chown -R ${self} ${at}, or set ${setting} to a directory of this user`,
      )
    if ((info.mode & 0o022) !== 0)
      throw new StartupError(
        `${where} is writable by ${info.mode & 0o002 ? 'every user' : 'its group'} (mode ${octal(info.mode)}, owner ${owner}): ` +
          `another user could plant files the service trusts; run chmod go-w ${at}, or set ${setting} to a directory of this user`,
      )
  }
}
