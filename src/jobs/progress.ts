/** What a progress total counts: `bytes` are shown in MB, anything else as a count of that noun (`stocks`). */
export type ProgressUnit = 'bytes' | (string & {})

/** Progress of a long job; the CLI renders a bar on a terminal and plain lines otherwise, tests pass none. */
export interface Progress {
  /** `already`: the part of `total` done before this run (a resumed job), left out of its rate and ETA. */
  start(label: string, total: number, unit?: ProgressUnit, already?: number): void
  tick(count?: number): void
  /** Ends the step; `message`, when given, is printed as a whole line (it names the file or step itself). */
  done(message?: string): void
}

export const silentProgress: Progress = {
  start: () => undefined,
  tick: () => undefined,
  done: () => undefined,
}
