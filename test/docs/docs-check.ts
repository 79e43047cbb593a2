import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * What README.md, docs/ and ops/ name, checked against a tree: relative paths, `npm run` scripts, `stockplan`
 * commands, links and their #anchors. `tracked` is the tree's file list (`git ls-files`), `commands` the CLI's
 * command names (`db migrate` for a subcommand), `scripts` package.json's.
 */
export interface Tree {
  readonly root: string
  readonly tracked: readonly string[]
  readonly commands: ReadonlySet<string>
  readonly scripts: ReadonlySet<string>
}

/** The documents the check reads: README.md and every Markdown file under docs/ and ops/. */
export function documents(tree: Tree): string[] {
  return tree.tracked.filter((f) => f === 'README.md' || /^(docs|ops)\/.*\.md$/.test(f))
}

/** The files git tracks under `root`, plus those it would track (untracked, not ignored). */
export function listTree(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
  })
  return out.split('\0').filter((f) => f !== '' && existsSync(path.join(root, f)))
}

/** Files a merge, a patch or an editor leaves behind. */
export function strayFiles(tracked: readonly string[]): string[] {
  return tracked.filter((f) => /(\.orig|\.rej|\.bak|\.swp|~)$|(^|\/)\.DS_Store$/.test(f))
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, ... */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const slug = heading[1]!
      .toLowerCase()
      .replace(/<[^>]*>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    anchors.add(n === 0 ? slug : `${slug}-${n}`)
  }
  for (const m of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]!)
  return anchors
}

const TOP = ['src', 'test', 'docs', 'ops', 'bench', 'bin', 'scripts']
const MIGRATIONS = 'src/storage/migrations'
const FILE_EXT = /\.(ts|js|mjs|cjs|css|html|md|json|ya?ml|sh)$/
/** Names the documents give of files the service or its tools write at run time, never in the tree. */
const RUNTIME = /(^|\/)(dist|var|node_modules|plans|pool|snapshots)\/|^\.env$|^\.demo\.json$|^stockplan\.password$/

/** Prose with code spans and fenced blocks kept, each line with its number. */
function lines(markdown: string): Array<{ line: number; text: string; fenced: boolean }> {
  let fenced = false
  return markdown.split('\n').map((text, i) => {
    const fence = /^\s*```/.test(text)
    if (fence) fenced = !fenced
    return { line: i + 1, text, fenced: fenced || fence }
  })
}

/** Not paths of the tree: a MIME type, an npm package, a file under a setting (`PG_DATA_DIR/log`), outside it. */
const NOT_TREE = /^(\.\.\/|@|(application|text|image)\/|[A-Z][A-Z0-9_]*\/)/

function pathProblem(tree: Tree, doc: string, raw: string): string | null {
  const token = raw.replace(/:\d+(-\d+)?$/, '').replace(/#.*$/, '')
  if (token === '' || RUNTIME.test(token) || NOT_TREE.test(token)) return null
  if (/^\d{4}-[a-z0-9-]+$/.test(token))
    return existsSync(path.join(tree.root, MIGRATIONS, `${token}.ts`)) ? null : `${raw}: no such migration`
  const clean = token.replace(/\/$/, '')
  const exists = (p: string) => existsSync(path.join(tree.root, p))
  const inDocDir = path.posix.join(path.posix.dirname(doc), clean)
  if (TOP.includes(clean.split('/')[0]!)) return exists(clean) ? null : `${raw}: no such path`
  if (clean.includes('/')) {
    if (exists(clean) || exists(inDocDir)) return null
    const dir = `/${clean}/`
    const found = tree.tracked.some((f) => `/${f}`.endsWith(`/${clean}`) || `/${f}`.includes(dir))
    return found ? null : `${raw}: no tracked path ends with it`
  }
  if (!FILE_EXT.test(clean)) return null
  if (exists(clean) || exists(inDocDir)) return null
  return tree.tracked.some((f) => path.posix.basename(f) === clean) ? null : `${raw}: no tracked file of that name`
}

function commandProblems(tree: Tree, text: string): string[] {
  const problems: string[] = []
  for (const m of text.matchAll(/\bnpm run(?: --silent)? ([\w:-]+)/g))
    if (!tree.scripts.has(m[1]!)) problems.push(`npm run ${m[1]}: no such script`)
  for (const m of text.matchAll(/\bnpm (test|start)\b/g))
    if (!tree.scripts.has(m[1]!)) problems.push(`npm ${m[1]}: no such script`)
  for (const m of text.matchAll(/\bstockplan ([a-z][\w-]*)(?: ([a-z][\w-]*))?/g)) {
    const [, name, sub] = m
    if (!tree.commands.has(name!)) problems.push(`stockplan ${name}: no such command`)
    else if (sub && [...tree.commands].some((c) => c.startsWith(`${name} `)) && !tree.commands.has(`${name} ${sub}`))
      problems.push(`stockplan ${name} ${sub}: no such subcommand`)
  }
  return problems
}

type Anchors = Map<string, Set<string>>

/** `resolved` (a path from the root) exists and, for a Markdown file, has the heading `anchor`. */
function targetProblem(tree: Tree, target: string, resolved: string, anchor: string | undefined, cache: Anchors) {
  if (resolved.startsWith('../')) return `${target}: outside the repository`
  const full = path.join(tree.root, resolved)
  if (!existsSync(full)) return `${target}: no such file`
  if (anchor === undefined || !resolved.endsWith('.md')) return null
  let anchors = cache.get(resolved)
  if (!anchors) {
    anchors = anchorsOf(readFileSync(full, 'utf8'))
    cache.set(resolved, anchors)
  }
  return anchors.has(anchor) ? null : `${target}: no heading #${anchor} in ${resolved}`
}

/** A Markdown link's target, relative to its document. */
function linkProblem(tree: Tree, doc: string, target: string, cache: Anchors): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) return null
  const [file, anchor] = target.split('#') as [string, string | undefined]
  const resolved = file === '' ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), file))
  return targetProblem(tree, target, resolved, anchor, cache)
}

/** A `file.md#anchor` named in a code span: from the root when it starts with a top folder, else beside the document. */
function namedAnchorProblem(tree: Tree, doc: string, token: string, cache: Anchors): string | null {
  const [file, anchor] = token.split('#') as [string, string]
  const fromRoot = TOP.includes(file.split('/')[0]!) || file === 'README.md'
  const resolved = fromRoot ? file : path.posix.normalize(path.posix.join(path.posix.dirname(doc), file))
  return targetProblem(tree, token, resolved, anchor, cache)
}

/** Every problem found, as `doc:line: what`; none on a sound tree. */
export function checkDocs(tree: Tree): string[] {
  const problems: string[] = []
  const anchorCache = new Map<string, Set<string>>()
  for (const doc of documents(tree)) {
    const markdown = readFileSync(path.join(tree.root, doc), 'utf8')
    for (const { line, text, fenced } of lines(markdown)) {
      const at = (what: string) => problems.push(`${doc}:${line}: ${what}`)
      for (const what of commandProblems(tree, text)) at(what)
      if (fenced) continue
      for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const what = linkProblem(tree, doc, m[1]!, anchorCache)
        if (what) at(what)
      }
      for (const m of text.matchAll(/`([^`\s]+)`/g)) {
        if (!/^[\w.@-]+(\/[\w.@-]*)*(:\d+(-\d+)?)?(#[\w-]+)?$/.test(m[1]!)) continue
        if (/\.md#/.test(m[1]!)) {
          const what = namedAnchorProblem(tree, doc, m[1]!, anchorCache)
          if (what) at(what)
          continue
        }
        const what = pathProblem(tree, doc, m[1]!)
        if (what) at(what)
      }
    }
  }
  return problems
}
