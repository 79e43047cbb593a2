/**
 * The import's transactions: one pooled client per transaction, committed on success and rolled back on any
 * error, with the staging, upsert and bundle-merge statements run inside it. The job decides what to load and
 * in which order; everything said to PostgreSQL is here and in import-staging.ts, verbatim-staging.ts,
 * bars-by-copy.ts and tushare-merge.ts.
 */
import type pg from 'pg'
import { throwIfAborted } from '../abort.js'
import { type BarsFile, type BarsOutcome, loadBarsByCopy } from './bars-by-copy.js'
import type { ColumnSpec, TushareStage } from './csv-formats.js'
import {
  analyzeStaging,
  copyIntoStaging,
  createStaging,
  type Staging,
  type UpsertCounts,
  upsertFromStaging,
} from './import-staging.js'
import {
  type MergeCounts,
  mergeTushareBundle,
  type NameStFlags,
  type StagedFile,
  stFromNames,
} from './tushare-merge.js'
import { stageVerbatim, type VerbatimFile, type VerbatimOutcome } from './verbatim-staging.js'

export interface ImportTransaction {
  /** A temp staging table for `table`'s columns (dropped at commit), filled by COPY from `copyText`; its row count. */
  stage(
    table: string,
    columns: readonly ColumnSpec[],
    copyText: AsyncIterable<string>,
  ): Promise<{ staging: Staging; rows: number }>
  /** The same staging from the file's bytes, checked and converted in SQL; or why it was left to `stage`. */
  stageVerbatim(file: VerbatimFile): Promise<VerbatimOutcome>
  /** A first load of bars and their factors by one COPY into the empty daily_bars; or why it was left to staging. */
  loadBars(file: BarsFile): Promise<BarsOutcome>
  /** Planner statistics for a staging table that is joined later (the bundle merge). */
  analyze(staging: Staging): Promise<void>
  /** The staged rows into `table`; DuplicateKeyError when the file repeats a key. */
  upsert(staging: Staging, table: string, primaryKey: readonly string[]): Promise<UpsertCounts>
  /** The staged tushare files merged into the store's tables; `timings` gets each step's milliseconds. */
  mergeTushare(
    staged: ReadonlyMap<TushareStage, StagedFile>,
    timings: Record<string, number>,
  ): Promise<Map<TushareStage, MergeCounts>>
  /** ST from the names of a staged stock_basic, for a bundle without ST history (see tushare-merge.ts). */
  stFromNames(securities: Staging): Promise<NameStFlags>
  /** Runs a long statement so that an abort of the job cancels it on the server. */
  cancelOnAbort<T>(run: () => Promise<T>): Promise<T>
}

export interface ImportStore {
  /** Runs `work` in one transaction; `signal` aborts it (and cancels what `cancelOnAbort` wraps). */
  inTransaction<T>(signal: AbortSignal, work: (tx: ImportTransaction) => Promise<T>): Promise<T>
}

export function createImportStore(pool: pg.Pool): ImportStore {
  return {
    async inTransaction(signal, work) {
      const client = await pool.connect()
      let discard = false
      try {
        await client.query('begin')
        const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid
        const cancelOnAbort = async <T>(run: () => Promise<T>): Promise<T> => {
          throwIfAborted(signal)
          const onAbort = () => {
            if (pid === undefined) return
            // the cancel may land after this client went back to the pool: never hand that connection on
            discard = true
            pool.query('select pg_cancel_backend($1)', [pid]).catch(() => undefined)
          }
          signal.addEventListener('abort', onAbort, { once: true })
          try {
            return await run()
          } catch (err) {
            throwIfAborted(signal)
            throw err
          } finally {
            signal.removeEventListener('abort', onAbort)
          }
        }
        const result = await work({
          async stage(table, columns, copyText) {
            const staging = await createStaging(client, table, columns)
            return { staging, rows: await copyIntoStaging(client, staging, copyText) }
          },
          stageVerbatim: (file) => stageVerbatim(client, file),
          loadBars: (file) => loadBarsByCopy(client, file),
          analyze: (staging) => analyzeStaging(client, staging),
          upsert: (staging, table, primaryKey) => upsertFromStaging(client, staging, table, primaryKey),
          mergeTushare: (staged, timings) => mergeTushareBundle(client, staged, timings),
          stFromNames: (securities) => stFromNames(client, securities.name),
          cancelOnAbort,
        })
        throwIfAborted(signal)
        await client.query('commit')
        return result
      } catch (err) {
        await client.query('rollback').catch(() => {
          discard = true
        })
        throw err
      } finally {
        client.release(discard)
      }
    },
  }
}
