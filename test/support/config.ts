import { type Config, loadConfig } from '../../src/config.js'

/** A config for tests: defaults plus overrides, never read from process.env. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ LOG_LEVEL: 'silent', ...env }, process.cwd())
}
