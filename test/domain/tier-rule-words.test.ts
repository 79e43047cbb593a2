import { describe, expect, it } from 'vitest'
import { assignTiers } from '../../src/domain/tiers.js'
import { VOCABULARY } from '../../src/domain/vocabulary.js'
// @ts-expect-error the viewer's browser module has no type declarations (how the page words a stored tier rule)
import { tierRuleWords } from '../../src/http/viewer/rules.js'
import { tierRow } from '../support/tier-rows.js'

const translator =
  (lang: 'en' | 'zh') =>
  (key: string, params: Record<string, string> = {}) => {
    const words = VOCABULARY.text[lang] as Record<string, string>
    const text = words[key]
    if (text === undefined) throw new Error(`no ${lang} words for ${key}`)
    return text.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '–')
  }

describe('every tier rule PLAN_VERSION 6 writes has words on the page, in both languages', () => {
  const rows = Array.from({ length: 30 }, (_, i) => {
    const { tier: _t, tier_rule: _r, ...row } = tierRow({ code: `6${String(i + 1).padStart(5, '0')}.SH`, rank: i + 1 })
    return { ...row, score: i === 25 ? 88.5 : 99 - i, flags: i === 2 ? (['limit_up_close'] as const).slice() : [] }
  })
  const edge = (alpha: number, fillsFirstDay = true) => ({
    alpha,
    buy: 0.006,
    sell: 0.005,
    roundTrip: 0.011,
    vol: 0.03,
    fillsFirstDay,
  })
  // 0 enters, 1 too costly, 2 closed limit-up, 3..22 held (22 switched out for 4), 23 leaves, 5.. full, 25 too thin
  const alphas = [0.03, 0.005, 0.03, ...Array(19).fill(0.02), 0.0, -0.008, 0.05, 0.025]
  const edges = new Map(rows.map((r, i) => [r.code, i === 25 ? edge(0.04, false) : edge(alphas[i] ?? -0.001)]))
  // all held the horizon but one, held 5 days (its rule says it cannot be switched yet)
  const held = new Map(rows.slice(3, 24).map((r, i) => [r.code, i === 1 ? 5 : 20]))

  it('names every rule of a normal and of a weak day (no stored English shown as it is)', () => {
    const rules = new Set<string>()
    for (const weak of [false, true])
      for (const r of assignTiers(rows, { weak, previousMain: held, edges, bookSize: 100e6 }).rows)
        rules.add(r.tier_rule)
    expect([...rules].some((r) => r.startsWith('replaced '))).toBe(true)
    expect([...rules].some((r) => r.startsWith('weak regime: '))).toBe(true)
    expect([...rules].some((r) => r.endsWith('it would not fill in a day'))).toBe(true)
    expect([...rules].some((r) => r.endsWith('held 5 of 20 days: not yet switchable'))).toBe(true)
    expect([...rules].some((r) => r.endsWith('held 20 days or more: switchable'))).toBe(true)
    expect(
      [...rules].some((r) => r.endsWith('held 20 days or more: switchable, but a weak day switches nothing')),
    ).toBe(true)
    for (const lang of ['en', 'zh'] as const)
      for (const rule of rules) {
        const words = tierRuleWords(translator(lang), rule)
        // an untranslated rule comes back as it was stored: in Chinese that shows; in English no placeholder is left
        if (lang === 'zh') expect(words, rule).not.toBe(rule)
        expect(words, rule).not.toMatch(/–|\{/)
      }
  })
})
