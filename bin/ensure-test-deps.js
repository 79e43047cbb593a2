#!/usr/bin/env node
// `npm test` runs this first: the browser tests drive Debian's Chromium, which a fresh machine lacks.
// apt's output goes to a log file; the test log gets one line.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, openSync } from 'node:fs'
import path from 'node:path'

const CHROMIUM = '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  if (process.getuid?.() !== 0) {
    console.error(`${CHROMIUM} is missing: install it with \`sudo apt-get install -y chromium\` and run npm test again`)
    process.exit(1)
  }
  const logFile = path.resolve('var', 'apt-chromium.log')
  mkdirSync(path.dirname(logFile), { recursive: true })
  const out = openSync(logFile, 'w')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const started = Date.now()
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', out, out], env })
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-wqy-zenhei'], {
      stdio: ['ignore', out, out],
      env,
    })
  } catch {
    console.error(`installing Debian chromium for the browser tests failed: see ${logFile}`)
    process.exit(1)
  }
  console.error(
    `installed Debian chromium and a CJK font for the browser tests in ${Math.round((Date.now() - started) / 1000)} s (apt log: ${logFile})`,
  )
}
