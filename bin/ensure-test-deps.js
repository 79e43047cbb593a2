#!/usr/bin/env node
// `npm test` runs this first: the browser tests drive Debian's Chromium, and the monitoring tests (test/ops/) run
// Debian's promtool, Prometheus, Alertmanager and amtool; a fresh machine lacks them. apt's output goes to a log
// file; the test log gets one line.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, openSync } from 'node:fs'
import path from 'node:path'

/** What the suite needs from Debian: a file to look for, the packages that bring it, and what for. */
const NEEDS = [
  {
    file: '/usr/bin/chromium-headless-shell',
    packages: ['chromium-headless-shell', 'fonts-wqy-zenhei'],
    what: "Debian's Chromium headless shell and a CJK font for the browser tests",
  },
  // without recommends: the node exporter, smartmontools and friends are not the tests' business
  {
    file: '/usr/bin/promtool',
    packages: ['prometheus'],
    what: "Debian's prometheus (promtool) for the monitoring tests",
    noRecommends: true,
  },
  {
    file: '/usr/bin/amtool',
    packages: ['prometheus-alertmanager'],
    what: "Debian's Alertmanager and amtool for the monitoring tests",
    noRecommends: true,
  },
]

const missing = NEEDS.filter((need) => !existsSync(need.file))
if (missing.length > 0) {
  if (process.getuid?.() !== 0) {
    for (const need of missing)
      console.error(`${need.file} is missing: install it with \`sudo apt-get install -y ${need.packages.join(' ')}\``)
    console.error('then run npm test again')
    process.exit(1)
  }
  const logFile = path.resolve('var', 'apt-test-deps.log')
  mkdirSync(path.dirname(logFile), { recursive: true })
  const out = openSync(logFile, 'w')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const started = Date.now()
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', out, out], env })
    for (const need of missing)
      execFileSync(
        'apt-get',
        ['install', '-y', '-qq', ...(need.noRecommends ? ['--no-install-recommends'] : []), ...need.packages],
        { stdio: ['ignore', out, out], env },
      )
  } catch {
    console.error(
      `installing ${missing.map((n) => n.packages.join(' ')).join(', ')} for the tests failed: see ${logFile}`,
    )
    process.exit(1)
  }
  console.error(
    `installed ${missing.map((n) => n.what).join('; ')} in ${Math.round((Date.now() - started) / 1000)} s (apt log: ${logFile})`,
  )
}
