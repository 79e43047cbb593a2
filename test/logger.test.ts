import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { turnBatched } from '../src/logger.js'

describe('the server log stream: one write per loop turn', () => {
  it('hands on the lines of a turn in one write at its end, in order, and each line once', () => {
    const writes: string[] = []
    const turnEnds: Array<() => void> = []
    const stream = turnBatched({ write: (text) => writes.push(text), schedule: (flush) => turnEnds.push(flush) })
    stream.write('a\n')
    stream.write('b\n')
    stream.write('c\n')
    expect(writes).toEqual([])
    expect(turnEnds).toHaveLength(1)
    turnEnds[0]!()
    expect(writes).toEqual(['a\nb\nc\n'])

    stream.write('d\n')
    expect(turnEnds).toHaveLength(2)
    stream.flushSync()
    expect(writes).toEqual(['a\nb\nc\n', 'd\n'])
    turnEnds[1]!()
    expect(writes).toHaveLength(2)
  })

  it('loses and cuts no line when the process exits in the turn it logged them, its stdout a pipe read late', async () => {
    // 20,000 lines (about 1.8 MB, more than the pipe and both socket buffers hold): half in one turn, half in the
    // next, which exits at once
    const script = `
      const { createLogger } = await import('./src/logger.ts')
      const log = createLogger({ logLevel: 'info' })
      for (let i = 0; i < 10000; i++) log.info({ i }, 'first turn')
      setImmediate(() => {
        for (let i = 10000; i < 20000; i++) log.info({ i }, 'exit turn')
        process.exit(0)
      })`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const closed = new Promise((resolve) => child.on('close', resolve))
    child.stdout.pause()
    await new Promise((resolve) => setTimeout(resolve, 300))
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stdout.resume()
    const code = await closed
    expect(code, output.slice(0, 300)).toBe(0)
    const lines = output.trimEnd().split('\n')
    expect(lines).toHaveLength(20000)
    expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual([...Array(20000).keys()])
  })
})
