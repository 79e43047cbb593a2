import { readdir, readFile, readlink } from 'node:fs/promises'
import { StartupError } from './storage/startup-errors.js'

/** Inodes of the sockets listening on `port` (Linux /proc), for naming the process that holds it. */
async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>()
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; column 9 is the inode
      if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === '0A' && cols[9]) inodes.add(cols[9])
    }
  }
  return inodes
}

/** `pid (command)` of a process listening on `port`, when this user may see it. */
export async function findPortHolder(port: number): Promise<string | undefined> {
  const inodes = await listeningInodes(port)
  if (inodes.size === 0) return undefined
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name))
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode && inodes.has(inode)) {
        const command = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim()
        return `${pid} (${command})`
      }
    }
  }
  return undefined
}

/** What to do when the HTTP listener cannot bind. */
export async function listenError(err: unknown, host: string, port: number): Promise<Error> {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') {
    const holder = await findPortHolder(port)
    return new StartupError(
      `port ${port} on ${host} is already in use${holder ? ` by process ${holder}` : ''}; ` +
        `set PORT to another port, or stop the process holding it (see: ss -ltnp 'sport = :${port}')`,
    )
  }
  if (code === 'EACCES')
    return new StartupError(
      `not allowed to listen on port ${port}; set PORT to a port above 1023 or run with the needed rights`,
    )
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new StartupError(
      `HOST=${host} is not an address of this machine; set HOST to 0.0.0.0, 127.0.0.1 or a local address`,
    )
  return err instanceof Error ? err : new Error(String(err))
}
