import { type DemoMarker, demoMarketDir, readDemoMarker } from '../storage/demo-marker.js'
import type { IsoDate } from '../storage/schema.js'

/**
 * The demo market, when it is what the store holds: `stockplan demo` left its marker in DEMO_DATA_DIR and the
 * store's latest tier date is the demo's last day (a store that imported other data since is not the demo's).
 */
export async function demoMarketInStore(
  demoDataDir: string,
  latestDate: () => Promise<IsoDate | undefined>,
): Promise<DemoMarker | undefined> {
  const marker = await readDemoMarker(demoMarketDir(demoDataDir))
  if (!marker) return undefined
  return (await latestDate()) === marker.lastDate ? marker : undefined
}
