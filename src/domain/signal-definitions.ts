/**
 * Which signal definitions produced a set of signal values, as one short fingerprint. A stored signal IC is only
 * worth learning from while the signals it was measured on are the ones the build computes today: the build
 * records the fingerprint it scored with, each IC row the fingerprint of the build whose tier rows it was
 * measured on, and a build learns only from ICs of its own fingerprint.
 */
import { createHash } from 'node:crypto'
import { SIGNAL_NAMES, SIGNAL_WINDOWS } from './signals.js'

/**
 * Raise by one whenever a signal's formula changes in a way the names and look-back windows below do not show
 * (e.g. revision 2: `abnormal_turnover` reads share-adjusted volume, issue 38). A new, removed or renamed signal
 * and a changed window change the fingerprint without it.
 */
export const SIGNAL_DEFINITIONS_REVISION = 2

export function signalDefinitionsFingerprint(
  revision: number = SIGNAL_DEFINITIONS_REVISION,
  names: readonly string[] = SIGNAL_NAMES,
  windows: Readonly<Record<string, number>> = SIGNAL_WINDOWS,
): string {
  const digest = createHash('sha256')
    .update(JSON.stringify({ names, windows: Object.entries(windows).sort(([a], [b]) => (a < b ? -1 : 1)) }))
    .digest('hex')
  return `r${revision}-${digest.slice(0, 12)}`
}

/** The fingerprint of the signals this code computes. */
export const SIGNAL_DEFINITIONS = signalDefinitionsFingerprint()
