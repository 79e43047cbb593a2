import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Command } from 'commander'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerDbCommands } from '../../src/cli/db.command.js'
import { registerDemoCommand } from '../../src/cli/demo.command.js'
import { registerEvaluateCommand } from '../../src/cli/evaluate.command.js'
import { registerImportCommand } from '../../src/cli/import.command.js'
import { registerJobCommands } from '../../src/cli/jobs.command.js'
import { registerReconcileCommand } from '../../src/cli/reconcile.command.js'
import { registerReplayCommand } from '../../src/cli/replay.command.js'
import { registerServeCommand } from '../../src/cli/serve.command.js'
import { registerSyncCommand } from '../../src/cli/sync.command.js'
import { anchorsOf, checkDocs, documents, listTree, strayFiles, type Tree } from './docs-check.js'

const ROOT = path.resolve(import.meta.dirname, '../..')

/** The CLI's commands as main.ts registers them; a subcommand as `db migrate`. */
function cliCommands(): Set<string> {
  const program = new Command('stockplan')
  for (const register of [
    registerServeCommand,
    registerDemoCommand,
    registerImportCommand,
    registerJobCommands,
    registerReconcileCommand,
    registerReplayCommand,
    registerSyncCommand,
    registerEvaluateCommand,
    registerDbCommands,
  ])
    register(program)
  const names = new Set<string>()
  for (const c of program.commands) {
    names.add(c.name())
    for (const sub of c.commands) names.add(`${c.name()} ${sub.name()}`)
  }
  return names
}

async function treeAt(root: string): Promise<Tree> {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { scripts: object }
  return { root, tracked: listTree(root), commands: cliCommands(), scripts: new Set(Object.keys(pkg.scripts)) }
}

describe('the documents name only what exists', () => {
  let tree: Tree
  beforeAll(async () => {
    tree = await treeAt(ROOT)
  })

  it('reads README.md and the documents under docs/ and ops/', () => {
    const docs = documents(tree)
    expect(docs).toContain('README.md')
    expect(docs).toContain('docs/score.md')
    expect(docs).toContain('ops/runbook.md')
  })

  it('every path, npm script, stockplan command, link and anchor they name exists', () => {
    expect(checkDocs(tree)).toEqual([])
  })

  it('no file a merge, a patch or an editor leaves behind', () => {
    expect(strayFiles(tree.tracked)).toEqual([])
  })

  it('anchors are GitHub heading slugs', () => {
    const anchors = anchorsOf("# The demo market's planted signal\n## The contract (`openapi.json`)\n## A\n## A\n")
    expect([...anchors]).toEqual(['the-demo-markets-planted-signal', 'the-contract-openapijson', 'a', 'a-1'])
  })
})

describe('the check finds what a change breaks', () => {
  let copy: string
  beforeAll(async () => {
    copy = await mkdtemp(path.join(os.tmpdir(), 'stockplan-docs-'))
    for (const part of ['README.md', 'package.json', 'docs', 'ops', 'src', 'test', 'bench', 'bin', 'scripts'])
      await cp(path.join(ROOT, part), path.join(copy, part), { recursive: true })
  })
  afterAll(async () => {
    await rm(copy, { recursive: true, force: true })
  })

  /** The copy's tree: every file in it counts as tracked (it is no git checkout). */
  async function copyTree(): Promise<Tree> {
    const { readdir } = await import('node:fs/promises')
    const files = (await readdir(copy, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => path.relative(copy, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    return { ...(await treeAt(ROOT)), root: copy, tracked: files }
  }

  it('a renamed file, a renamed heading, a command and a script that are gone', async () => {
    await rename(path.join(copy, 'src/jobs/demo/signal.ts'), path.join(copy, 'src/jobs/demo/planted.ts'))
    const score = path.join(copy, 'docs/score.md')
    const text = await readFile(score, 'utf8')
    await writeFile(score, text.replace("## The demo market's planted signal", '## The planted signal'))
    const readme = path.join(copy, 'README.md')
    await writeFile(
      readme,
      `${await readFile(readme, 'utf8')}\nRun \`npx stockplan backfill\` or \`npm run deploy\`.\n`,
    )
    const problems = checkDocs(await copyTree())
    expect(problems.some((p) => p.includes('src/jobs/demo/signal.ts: no such path'))).toBe(true)
    expect(problems.some((p) => p.includes('no heading #the-demo-markets-planted-signal'))).toBe(true)
    expect(problems).toContain(
      `README.md:${(await readFile(readme, 'utf8')).split('\n').length - 1}: stockplan backfill: no such command`,
    )
    expect(problems.some((p) => p.endsWith('npm run deploy: no such script'))).toBe(true)
  })

  it('a stray file', async () => {
    await writeFile(path.join(copy, 'docs/score.md.orig'), '')
    expect(strayFiles((await copyTree()).tracked)).toEqual(['docs/score.md.orig'])
  })
})
