import cliProgress from 'cli-progress'
import type { Progress } from '../jobs/progress.js'

/** A bar with counts and rate on a terminal; plain lines (every 10% or 5 s) when stderr is not a TTY. */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) return barProgress(stream)
  return lineProgress(stream)
}

function barProgress(stream: NodeJS.WriteStream): Progress {
  let bar: cliProgress.SingleBar | undefined
  let value = 0
  let startedAt = 0
  return {
    start(label, total) {
      bar?.stop()
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label.padEnd(24).slice(0, 24)} [{bar}] {percentage}% | {value}/{total} | {rate}/s | eta {eta_formatted}`,
          hideCursor: true,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      )
      bar.start(Math.max(1, total), 0, { rate: '0' })
      value = 0
      startedAt = Date.now()
    },
    tick(count = 1) {
      if (!bar) return
      value += count
      const seconds = Math.max(0.001, (Date.now() - startedAt) / 1000)
      bar.increment(count, { rate: Math.round(value / seconds).toLocaleString('en-US') })
    },
    done() {
      bar?.stop()
      bar = undefined
    },
  }
}

function lineProgress(stream: NodeJS.WriteStream): Progress {
  let label = ''
  let total = 1
  let value = 0
  let startedAt = 0
  let lastAt = 0
  let lastTenth = 0
  const line = (): void => {
    const seconds = Math.max(0.001, (Date.now() - startedAt) / 1000)
    stream.write(
      `${label}: ${value}/${total} (${Math.floor((value / total) * 100)}%), ${Math.round(value / seconds)}/s\n`,
    )
  }
  return {
    start(l, t) {
      label = l
      total = Math.max(1, t)
      value = 0
      startedAt = Date.now()
      lastAt = startedAt
      lastTenth = 0
    },
    tick(count = 1) {
      value += count
      const tenth = Math.floor((value / total) * 10)
      if (tenth > lastTenth || Date.now() - lastAt > 5000) {
        lastTenth = tenth
        lastAt = Date.now()
        line()
      }
    },
    done(message) {
      if (message) stream.write(`${label}: ${message}\n`)
    },
  }
}
