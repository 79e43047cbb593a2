/**
 * Where a `--cpu-prof` profile's CPU went: self time by package (node_modules/<pkg>, node internals by module,
 * our own files) and the busiest functions. Idle time is left out of the percentages.
 *   npx tsx bench/cpu-profile.ts <dir or .cpuprofile>
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
}
interface CpuProfile {
  readonly startTime: number
  readonly nodes: ProfileNode[]
  readonly samples: number[]
  readonly timeDeltas: number[]
}

function bucketOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]!
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/').slice(0, 2).join('/')}`
  const own = /\/(src|bench)\/(.+)$/.exec(url)
  return own ? `${own[1]}/${own[2]}` : url
}

/**
 * `windows`: only samples inside these [from, to] spans of the monotonic clock in µs (`process.hrtime` of any
 * process on the machine, as V8 stamps its samples), e.g. the load runs without start-up and warm-up.
 */
export async function summariseProfile(
  location: string,
  options: { top?: number; windows?: ReadonlyArray<readonly [number, number]> } = {},
): Promise<string> {
  const top = options.top ?? 18
  const inWindow = (t: number): boolean => !options.windows || options.windows.some(([a, b]) => t >= a && t <= b)
  const files = (await stat(location)).isDirectory()
    ? (await readdir(location)).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(location, f))
    : [location]
  const byBucket = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let total = 0
  for (const file of files) {
    const prof = JSON.parse(await readFile(file, 'utf8')) as CpuProfile
    const nodes = new Map(prof.nodes.map((n) => [n.id, n]))
    let t = prof.startTime
    prof.samples.forEach((id, i) => {
      const us = prof.timeDeltas[i] ?? 0
      t += us
      if (!inWindow(t)) return
      const node = nodes.get(id)!
      const { functionName, url, lineNumber } = node.callFrame
      if (functionName === '(idle)') return
      total += us
      const bucket = bucketOf(url, functionName)
      byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + us)
      const fn = `${functionName || '(anonymous)'} ${bucket}:${lineNumber + 1}`
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + us)
    })
  }
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
  return [
    `CPU profile (${files.length} file(s), ${(total / 1e6).toFixed(1)} s busy${options.windows ? ' under load' : ''}), self time by package:`,
    ...rows(byBucket),
    'busiest functions (self time):',
    ...rows(byFunction),
  ].join('\n')
}

if (process.argv[1]?.endsWith('cpu-profile.ts')) {
  const target = process.argv[2]
  if (!target) {
    console.error('usage: npx tsx bench/cpu-profile.ts <dir or .cpuprofile>')
    process.exit(2)
  }
  console.log(await summariseProfile(target))
}
