import cliProgress from 'cli-progress'
import type { Progress, ProgressUnit } from '../jobs/progress.js'

/** `12.3 MB` for bytes, `1,234 rows` for anything else. */
export function amountIn(unit: ProgressUnit, value: number): string {
  if (unit === 'bytes') return `${(value / 1_048_576).toFixed(1)} MB`
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`
}

/** `6.2 days/s` (whole from 10 a second, one decimal below), or `12.5 s per day` under 0.1 a second. */
export function rateIn(unit: ProgressUnit, perSecond: number): string {
  if (unit === 'bytes') return `${amountIn(unit, perSecond)}/s`
  if (perSecond >= 10) return `${amountIn(unit, perSecond)}/s`
  if (perSecond >= 0.1 || perSecond <= 0) return `${perSecond.toFixed(1)} ${unit}/s`
  return `${(1 / perSecond).toFixed(1)} s per ${unit.replace(/s$/, '')}`
}

/** `45s`, `3m20s`, `1h05m`. */
export function durationText(seconds: number): string {
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

/**
 * `2.0/10.6 MB (18%), 22.5 MB/s, ETA 0s` or `120/800 days (15%), 0.3 days/s, ETA 37m47s`. `already`: the part
 * done before this run (a resumed replay), left out of the rate and the ETA.
 */
export function progressLine(unit: ProgressUnit, value: number, total: number, seconds: number, already = 0): string {
  const percent = Math.floor((Math.min(value, total) / total) * 100)
  const shown =
    unit === 'bytes'
      ? `${(value / 1_048_576).toFixed(1)}/${amountIn(unit, total)}`
      : `${value.toLocaleString('en-US')}/${amountIn(unit, total)}`
  const rate = (value - already) / Math.max(0.001, seconds)
  const eta = rate > 0 && value < total ? `, ETA ${durationText((total - value) / rate)}` : ''
  return `${shown} (${percent}%), ${rateIn(unit, rate)}${eta}`
}

/**
 * A bar on a terminal (redrawn at most 10 times a second), plain lines (every 10% or 5 s) when stderr is not
 * a TTY. Amounts are in MB or counted items; a step's closing message is printed once, as given.
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): Progress {
  return stream.isTTY ? barProgress(stream, now) : lineProgress(stream, now)
}

interface Step {
  label: string
  total: number
  unit: ProgressUnit
  value: number
  already: number
  startedAt: number
}

function newStep(
  label: string,
  total: number,
  unit: ProgressUnit | undefined,
  already: number,
  now: () => number,
): Step {
  return { label, total: Math.max(1, total), unit: unit ?? 'items', value: already, already, startedAt: now() }
}

const seconds = (step: Step, now: () => number): number => (now() - step.startedAt) / 1000

function barProgress(stream: NodeJS.WriteStream, now: () => number): Progress {
  let step: Step | undefined
  let bar: cliProgress.SingleBar | undefined
  const payload = (s: Step) => ({ amounts: progressLine(s.unit, s.value, s.total, seconds(s, now), s.already) })
  const stop = (): void => {
    bar?.stop()
    bar = undefined
    step = undefined
  }
  return {
    start(label, total, unit, already = 0) {
      stop()
      step = newStep(label, total, unit, already, now)
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label.padEnd(22).slice(0, 22)} [{bar}] {amounts}`,
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
      bar.start(step.total, step.value, payload(step))
    },
    tick(count = 1) {
      if (!step || !bar) return
      step.value += count
      bar.update(Math.min(step.value, step.total), payload(step))
    },
    done(message) {
      stop()
      if (message) stream.write(`${message}\n`)
    },
  }
}

function lineProgress(stream: NodeJS.WriteStream, now: () => number): Progress {
  let step: Step | undefined
  let lastAt = 0
  let lastTenth = 0
  return {
    start(label, total, unit, already = 0) {
      step = newStep(label, total, unit, already, now)
      lastAt = step.startedAt
      lastTenth = 0
    },
    tick(count = 1) {
      if (!step) return
      step.value += count
      const tenth = Math.floor((step.value / step.total) * 10)
      if (tenth > lastTenth || now() - lastAt > 5000) {
        lastTenth = tenth
        lastAt = now()
        stream.write(
          `${step.label}: ${progressLine(step.unit, step.value, step.total, seconds(step, now), step.already)}\n`,
        )
      }
    },
    done(message) {
      step = undefined
      if (message) stream.write(`${message}\n`)
    },
  }
}
