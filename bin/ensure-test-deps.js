#!/usr/bin/env node
// `npm test` runs this first: the browser tests drive Debian's Chromium, which a fresh machine lacks.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CHROMIUM = '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  if (process.getuid?.() !== 0) {
    console.error(`${CHROMIUM} is missing: install it with \`sudo apt-get install -y chromium\` and run npm test again`)
    process.exit(1)
  }
  console.error('installing Debian chromium (and a CJK font) for the browser tests ...')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-wqy-zenhei'], { stdio: 'inherit', env })
}
