/**
 * The `codes` / `code` query parameters of the lookup endpoints (and the CLI's arguments) as a list of inputs,
 * and the two ways the lookups treat that list: `/plan/verdict` keeps every item (duplicates too, in order);
 * `/logic_state` merges items that normalise to one code, keeping the first input, and puts the rejected
 * inputs after the valid ones.
 */
import { parseCode } from './codes.js'

/** Most codes one lookup request may name; more is refused (422) rather than served slowly. */
export const MAX_CODES = 1000

/** Comma-separated items, each trimmed; empty items dropped; order and duplicates kept. */
export function splitCodes(text: string | undefined): string[] {
  if (text === undefined) return []
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
}

/** `codes` takes precedence over `code` whenever it names at least one item; `code` accepts a comma list too. */
export function requestedCodes(query: { readonly codes?: string; readonly code?: string }): string[] {
  const fromCodes = splitCodes(query.codes)
  return fromCodes.length > 0 ? fromCodes : splitCodes(query.code)
}

/** Why the list cannot be served (`empty` -> 400, `too_many` -> 422), or undefined when it can. */
export function codeListProblem(items: readonly string[]): { kind: 'empty' | 'too_many'; detail: string } | undefined {
  if (items.length === 0) {
    return { kind: 'empty', detail: 'no code given: pass codes=600519.SH,SZ000001 or code=600519' }
  }
  if (items.length > MAX_CODES) {
    return { kind: 'too_many', detail: `too many codes: ${items.length} given, at most ${MAX_CODES} per request` }
  }
  return undefined
}

export type CodeItem =
  | { readonly input: string; readonly code: string }
  | { readonly input: string; readonly error: string }

/** Every item in order, each with its normalised code or the reason it was not understood. */
export function parseCodeItems(items: readonly string[]): CodeItem[] {
  return items.map((input) => {
    const parsed = parseCode(input)
    return parsed.ok ? { input, code: parsed.code } : { input, error: parsed.reason }
  })
}

export interface MergedCodes {
  /** One item per normalised code, in the order of its first input. */
  readonly valid: ReadonlyArray<{ readonly input: string; readonly code: string }>
  /** Every input that is not a code, in input order. */
  readonly invalid: ReadonlyArray<{ readonly input: string; readonly error: string }>
}

/** The logic-state rule: duplicates that normalise to one code are merged and the first input is kept. */
export function mergeByCode(items: readonly string[]): MergedCodes {
  const valid: Array<{ input: string; code: string }> = []
  const invalid: Array<{ input: string; error: string }> = []
  const seen = new Set<string>()
  for (const item of parseCodeItems(items)) {
    if ('error' in item) invalid.push(item)
    else if (!seen.has(item.code)) {
      seen.add(item.code)
      valid.push(item)
    }
  }
  return { valid, invalid }
}

/** The distinct normalised codes of the items, in first-seen order: what a batch query asks for. */
export function distinctCodes(items: readonly CodeItem[]): string[] {
  return [...new Set(items.flatMap((item) => ('code' in item ? [item.code] : [])))]
}
