/** Progress of a long job; the CLI renders a bar on a terminal and plain lines otherwise, tests pass none. */
export interface Progress {
  start(label: string, total: number): void
  tick(count?: number): void
  done(message?: string): void
}

export const silentProgress: Progress = {
  start: () => undefined,
  tick: () => undefined,
  done: () => undefined,
}
