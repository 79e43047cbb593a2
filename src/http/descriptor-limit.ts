import { readFileSync } from 'node:fs'

/** Descriptors kept free for what is not an HTTP connection: the store's pool, files, node's own. */
const RESERVED_DESCRIPTORS = 64
const FALLBACK_MAX_CONNECTIONS = 1000

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
 * The overall connection cap when HTTP_MAX_CONNECTIONS is unset: what the descriptor limit leaves after a reserve,
 * so that idle sockets can never take the descriptors the store and the plan files need.
 */
export function defaultMaxConnections(limit: number | undefined): number {
  if (limit === undefined) return FALLBACK_MAX_CONNECTIONS
  return Math.max(16, Math.min(FALLBACK_MAX_CONNECTIONS, limit - RESERVED_DESCRIPTORS))
}
