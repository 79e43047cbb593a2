import { Command } from 'commander'
import { ConfigError } from '../config.js'
import { redactUrlsIn } from '../redact.js'
import { formatErrorLine } from '../scheduler/child-protocol.js'
import { registerDbCommands } from './db.command.js'
import { registerDemoCommand } from './demo.command.js'
import { registerEvaluateCommand } from './evaluate.command.js'
import { registerImportCommand } from './import.command.js'
import { registerJobCommands } from './jobs.command.js'
import { registerReconcileCommand } from './reconcile.command.js'
import { registerReplayCommand } from './replay.command.js'
import { registerServeCommand } from './serve.command.js'
import { registerSyncCommand } from './sync.command.js'

const program = new Command('stockplan').description('Daily stock plan service').version('0.1.0')
registerServeCommand(program)
registerDemoCommand(program)
registerImportCommand(program)
registerJobCommands(program)
registerReconcileCommand(program)
registerReplayCommand(program)
registerSyncCommand(program)
registerEvaluateCommand(program)
registerDbCommands(program)

try {
  await program.parseAsync(process.argv)
} catch (err) {
  const message = redactUrlsIn(err instanceof Error ? err.message : String(err))
  console.error(formatErrorLine(err instanceof ConfigError ? 'configuration error' : 'error', message))
  process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1
}
