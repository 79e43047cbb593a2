// The translator of both pages over the one vocabulary (`src/domain/vocabulary.ts`, served as /vocabulary.js).
import { VOCABULARY } from '/vocabulary.js'

const { en, zh } = VOCABULARY.text
const terms = VOCABULARY.terms

export const LANGUAGES = ['zh', 'en']

/** `zh` for any Chinese browser language first in the list, else `en`; a saved choice wins. */
export function pickLanguage(saved, browserLanguages) {
  if (LANGUAGES.includes(saved)) return saved
  for (const tag of browserLanguages ?? []) {
    const lang = String(tag).toLowerCase()
    if (lang.startsWith('zh')) return 'zh'
    if (lang.startsWith('en')) return 'en'
  }
  return 'en'
}

/** A translator for one language: `t(key, params)` for page text, `term(group, key)` for API keys. */
export function translator(lang) {
  const words = lang === 'zh' ? zh : en
  const dict = terms[lang === 'zh' ? 'zh' : 'en']
  const t = (key, params = {}) =>
    (words[key] ?? en[key] ?? key).replace(/\{(\w+)\}/g, (_, name) =>
      params[name] === undefined || params[name] === null ? '–' : String(params[name]),
    )
  /** The word for an internal key; an unknown key is shown as it came (never hidden). */
  const term = (group, key) => (key === null || key === undefined ? '–' : (dict[group]?.[key] ?? String(key)))
  return { lang, t, term, terms: dict, glossary: dict.glossary, locale: lang === 'zh' ? 'zh-CN' : 'en-GB' }
}
