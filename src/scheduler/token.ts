import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest()

/**
 * Constant-time token check: both sides are hashed first so the lengths always match and `timingSafeEqual`
 * never throws or leaks the length. Anything but a single string header (absent, repeated) is wrong.
 * Unlike the Java executor, an empty configured token never means "allow": the plugin refuses to mount without one.
 */
export function tokenMatches(presented: unknown, expected: string): boolean {
  if (typeof presented !== 'string' || expected === '') return false
  return timingSafeEqual(digest(presented), digest(expected))
}
