// The CLI's compiled form: src/ bundled by esbuild into dist/stockplan-cli/<build>/ (one chunk per lazily
// imported command; node_modules stay external but for BUNDLED). `bin/stockplan.js` runs it when it is newer than
// every file under src/ and this file, and rebuilds it (about 0.3 s) after an edit; `npm ci` builds it in `prepare`.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const SRC = join(ROOT, 'src')
const OUT = join(ROOT, 'dist', 'stockplan-cli')
const POINTER = join(OUT, 'current.json')

/**
 * Packages only our own code imports, written as hundreds of small ES modules: bundled, a process starts without
 * opening and compiling each one (typebox ~680 files, kysely ~290; `stockplan serve` took 1.1 s of CPU to listen).
 */
const BUNDLED = new Set(['typebox', 'kysely'])

const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/')

/** Every other package stays an import from node_modules, as esbuild's `packages: 'external'` would leave it. */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      BUNDLED.has(packageName(args.path)) ? undefined : { path: args.path, external: true },
    )
  },
}

/** The newest modification time (ms) of this file and any file under src/ (the viewer's assets are read at run time). */
function newestSourceMs(dir = SRC) {
  let newest = dir === SRC ? statSync(fileURLToPath(import.meta.url)).mtimeMs : 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name)
    const ms = entry.isDirectory() ? newestSourceMs(file) : statSync(file).mtimeMs
    if (ms > newest) newest = ms
  }
  return newest
}

/** The entry file of a bundle built after the last source edit, or undefined. */
export function freshBundle() {
  if (!existsSync(POINTER)) return undefined
  try {
    const { entry, sourcesMs } = JSON.parse(readFileSync(POINTER, 'utf8'))
    const file = join(OUT, entry)
    if (!existsSync(file) || newestSourceMs() > sourcesMs) return undefined
    return file
  } catch {
    return undefined
  }
}

// Each module keeps its own import.meta.url (package.json, bin/ and the viewer's files are found relative to it).
const keepModuleUrl = (buildDir) => ({
  name: 'keep-module-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('import.meta.url')) return undefined
      const fromBuild = relative(buildDir, args.path).split('\\').join('/')
      return {
        contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBuild)}, import.meta.url).href`),
        loader: 'ts',
      }
    })
  },
})

/** Builds a new bundle and points current.json at it; returns its entry file. Throws when esbuild is absent. */
export async function buildBundle() {
  const { build } = await import('esbuild')
  const sourcesMs = newestSourceMs()
  const id = `${Date.now().toString(36)}-${process.pid}`
  const buildDir = join(OUT, id)
  await build({
    entryPoints: { stockplan: join(SRC, 'cli', 'main.ts') },
    outdir: buildDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
    plugins: [externalPackages, keepModuleUrl(buildDir)],
  })
  const tmp = `${POINTER}.${process.pid}`
  writeFileSync(tmp, `${JSON.stringify({ entry: `${id}/stockplan.js`, sourcesMs })}\n`)
  renameSync(tmp, POINTER) // atomic: a concurrent command sees the old build or the new one
  pruneOldBuilds(id)
  return join(buildDir, 'stockplan.js')
}

/** Builds older than an hour other than the current one (a running command may still load an older one's chunks). */
function pruneOldBuilds(keep) {
  const hourAgo = Date.now() - 3_600_000
  for (const entry of readdirSync(OUT, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep) continue
    const dir = join(OUT, entry.name)
    if (statSync(dir).mtimeMs < hourAgo) rmSync(dir, { recursive: true, force: true })
  }
}

export const fileUrl = (file) => pathToFileURL(file).href

// `node bin/cli-bundle.js` (npm's `prepare`): build now; without esbuild (production install) say so and go on.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(OUT, { recursive: true })
  try {
    const started = Date.now()
    const entry = await buildBundle()
    console.error(`stockplan CLI compiled to ${relative(ROOT, entry)} in ${Date.now() - started} ms`)
  } catch (err) {
    console.error(`stockplan CLI not compiled (${err.message}); it will run through tsx`)
  }
}
