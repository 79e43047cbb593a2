import { describe, expect, it } from 'vitest'
import { renderPlanMarkdown } from '../../src/domain/markdown.js'
import { SIGNAL_NAMES } from '../../src/domain/signals.js'
import { englishTerm, VOCABULARY } from '../../src/domain/vocabulary.js'

/** The signals of the walk-forward score (issue 27): the pages name each in both languages. */
const SIGNALS = [...SIGNAL_NAMES]

const keysOf = (o: object) => Object.keys(o).sort()

describe('the one vocabulary of both pages and the Markdown', () => {
  it('has every page text and every term group in both languages', () => {
    expect(keysOf(VOCABULARY.text.zh)).toEqual(keysOf(VOCABULARY.text.en))
    const { en, zh } = VOCABULARY.terms
    expect(keysOf(zh)).toEqual(keysOf(en))
    for (const group of Object.keys(en) as Array<keyof typeof en>) {
      if (group === 'glossary') expect(zh.glossary).toHaveLength(en.glossary.length)
      else expect(keysOf(zh[group]), group).toEqual(keysOf(en[group]))
    }
  })

  it('names and explains every signal of the walk-forward score in both languages', () => {
    for (const lang of ['en', 'zh'] as const) {
      const terms = VOCABULARY.terms[lang]
      expect(keysOf(terms.signal_name)).toEqual([...SIGNALS].sort())
      expect(keysOf(terms.signalTip)).toEqual([...SIGNALS].sort())
    }
    expect(Object.values(VOCABULARY.terms.zh.signal_name).join('')).not.toMatch(/_/)
  })

  it('gives the Markdown plan its English words for regime and signals', () => {
    expect(englishTerm('regime', 'weak')).toBe(VOCABULARY.terms.en.regime.weak)
    expect(englishTerm('signal', 'not-a-key')).toBe('not-a-key')
    const md = renderPlanMarkdown(
      {
        date: '2026-11-20',
        main: [],
        observe: [],
        generated_at: '2026-11-20T10:00:00Z',
        plan_version: '2',
        card_counts: {},
        candidates: [],
        watch: [],
        segments_pointed: [],
      } as unknown as Parameters<typeof renderPlanMarkdown>[0],
      { status: 'weak', weak_day: true, source: 'test' },
      {},
    )
    expect(md).toContain(`**Regime:** ${VOCABULARY.terms.en.regime.weak} (weak day)`)
  })
})
