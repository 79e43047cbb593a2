import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoMarketDir, writeDemoMarker } from '../../src/storage/demo-marker.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

/** `/track-record` says what the demo plants when the store holds the demo market, and nothing otherwise. */
describe('the track record page and the demo market', () => {
  let db: TestDatabase
  let demo: DemoMarket
  let demoDir: string
  let t: TestApp
  beforeAll(async () => {
    ;[db, demo] = await createDemoDatabase()
    demoDir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-demo-note-'))
    t = await buildTestApp(db, { DEMO_DATA_DIR: demoDir })
  })
  afterAll(async () => {
    await t?.close()
    await demo?.cleanup()
    await db?.drop()
    await rm(demoDir, { recursive: true, force: true })
  })

  const marker = (signal: number, lastDate: string) => ({
    stocks: 400,
    days: 90,
    seed: 7,
    signal,
    history: 3,
    lastDate,
  })
  const page = async () => (await t.app.inject({ method: 'GET', url: '/track-record' })).body

  it('no demo marker: the note stays hidden', async () => {
    expect(await page()).toContain('<p id="demo-note" class="notice" hidden></p>')
  })

  it('the demo market in the store: the note names what is planted', async () => {
    await writeDemoMarker(demoMarketDir(demoDir), marker(1, demo.planned.at(-1)!))
    const body = await page()
    expect(body).toContain('<p id="demo-note" class="notice" data-i18n="tr.demo_note"></p>')
    expect(body).not.toContain('tr.demo_note_null')
  })

  it('the null market: the note says nothing is planted', async () => {
    await writeDemoMarker(demoMarketDir(demoDir), marker(0, demo.planned.at(-1)!))
    expect(await page()).toContain('data-i18n="tr.demo_note_null"')
  })

  it('a store whose latest plan day is not the demo’s last: no note', async () => {
    await writeDemoMarker(demoMarketDir(demoDir), marker(1, demo.planned[0]!))
    expect(await page()).toContain('<p id="demo-note" class="notice" hidden></p>')
  })
})
