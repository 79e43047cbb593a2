import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { writeFileAtomic } from './atomic-file.js'

/** What `stockplan demo` last imported and planned, kept beside its market files. */
export interface DemoMarker {
  readonly stocks: number
  readonly days: number
  readonly seed: number
  /** The planted effects' strength: 0 is the null market. */
  readonly signal: number
  readonly history: number
  readonly lastDate: string
}

const MARKER = '.demo.json'

/** The demo's market files: `<DEMO_DATA_DIR>/market`. */
export const demoMarketDir = (demoDataDir: string): string => path.join(demoDataDir, 'market')

export async function readDemoMarker(marketDir: string): Promise<DemoMarker | undefined> {
  try {
    return JSON.parse(await readFile(path.join(marketDir, MARKER), 'utf8')) as DemoMarker
  } catch {
    return undefined
  }
}

export async function writeDemoMarker(marketDir: string, marker: DemoMarker): Promise<void> {
  await writeFileAtomic(path.join(marketDir, MARKER), `${JSON.stringify(marker)}\n`)
}
