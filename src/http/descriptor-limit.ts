import { readFileSync } from 'node:fs'
import { DEFAULT_POOL_MAX } from '../storage/db.js'
import { OVER_CAP_BUDGET } from './connection-limits.js'

const FALLBACK_MAX_CONNECTIONS = 1000
const MIN_MAX_CONNECTIONS = 16

/**
 * What a serving process holds that is not an HTTP connection, in descriptors: node's own (stdio, the event loop's
 * epoll and wake-up descriptors, the listening socket; 23 in `stockplan serve` measured before its first request),
 * with room to spare; files open at once (snapshot reads, plan and pool files written atomically, /proc); the
 * store's LISTEN connection and the embedded PostgreSQL's or the log printer's pipes.
 */
const NODE_OWN = 32
const FILES = 16
const STORE_EXTRAS = 4
/** A chain child's pipes in this process (stdout, stderr) and the one node uses while it spawns it. */
const PER_CHILD = 3

/** Descriptors kept free for what is not an HTTP connection under the cap (README "HTTP_MAX_CONNECTIONS"). */
export function descriptorReserve(parts: { poolMax?: number; children: number }): number {
  const pool = parts.poolMax ?? DEFAULT_POOL_MAX
  return NODE_OWN + FILES + pool + STORE_EXTRAS + parts.children * PER_CHILD + OVER_CAP_BUDGET
}

/** This process's open-file limit (its soft limit, which node raises to the hard one), from Linux's /proc. */
export function descriptorLimit(
  limits: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  let text: string
  try {
    text = limits()
  } catch {
    return undefined // not Linux: no /proc
  }
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(text)?.[1]
  return soft === undefined || soft === 'unlimited' ? undefined : Number(soft)
}

/**
 * The overall connection cap when HTTP_MAX_CONNECTIONS is unset: what the descriptor limit leaves after `reserve`,
 * so that sockets can never take the descriptors the store, the files and the chain's children need.
 */
export function defaultMaxConnections(limit: number | undefined, reserve: number): number {
  if (limit === undefined) return FALLBACK_MAX_CONNECTIONS
  return Math.max(MIN_MAX_CONNECTIONS, Math.min(FALLBACK_MAX_CONNECTIONS, limit - reserve))
}
