import { redactUrlsIn } from '../redact.js'
import type { LogPage, RunStore } from '../storage/run.repository.js'
import { STEP_TAG } from './child-protocol.js'
import type { LogResult } from './protocol.js'
import { MSG } from './protocol.js'

/** Run log lines read `YYYY-MM-DD HH:mm:ss [step] text`, in China Standard Time (UTC+8, no DST), the market's clock. */
const CST_OFFSET_MS = 8 * 3600 * 1000

export function formatLogTime(at: Date): string {
  return new Date(at.getTime() + CST_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ')
}

export function formatLogLine(line: { loggedAt: Date; step: string; text: string }): string {
  return `${formatLogTime(line.loggedAt)} [${line.step}] ${line.text}`
}

/** A `[step] text` line from a handler names its step; any other line belongs to the current step. */
export function splitStep(line: string): { step: string | undefined; text: string } {
  const match = STEP_TAG.exec(line)
  return match ? { step: match[1], text: match[2] ?? '' } : { step: undefined, text: line }
}

/** One line per text line: a line break inside a message must not shift the line numbers the admin pages by. */
export function textLines(text: string): string[] {
  return text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n')
}

/** `/log` semantics (XJ `XxlJobFileAppender.readLog` + the admin's `isEnd`): lines from `fromLineNum`, 1-based. */
export function toLogResult(fromLineNum: number, page: LogPage | undefined): LogResult {
  if (!page) return { fromLineNum, toLineNum: 0, logContent: MSG.logNotFound, isEnd: true }
  const last = page.lines.at(-1)
  // The page ends at its last line so the admin's next fromLineNum (toLineNum + 1) continues from there; an empty
  // page answers fromLineNum - 1, never a later line count (the admin would skip to past it).
  const toLineNum = last ? last.lineNo : fromLineNum - 1
  const logContent = page.lines.map((l) => `${formatLogLine(l)}\n`).join('')
  return { fromLineNum, toLineNum, logContent, isEnd: page.finished && fromLineNum > page.lastLineNo }
}

export interface RunLogWriter {
  /** Appends lines in call order; never rejects (a failed write is reported through `onError`). */
  write(step: string, text: string): Promise<void>
  /** Resolves when every line written so far is stored. */
  flush(): Promise<void>
  /** Later writes are dropped: the run is closed (a handler that ignored its abort may still be talking). */
  close(): void
}

export function createRunLogWriter(
  store: RunStore,
  logId: number,
  now: () => Date,
  onError: (err: unknown) => void,
): RunLogWriter {
  let tail: Promise<void> = Promise.resolve()
  let closed = false
  return {
    write(step, text) {
      if (closed) return tail
      const at = now()
      // a secret in a URL (a push address with a password) never reaches the admin's log page
      const lines = textLines(redactUrlsIn(text))
      tail = tail.then(() => store.appendLines(logId, step, lines, at)).catch(onError)
      return tail
    },
    flush: () => tail,
    close() {
      closed = true
    },
  }
}
