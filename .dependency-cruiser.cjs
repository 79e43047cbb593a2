/**
 * The layer rule: which folder of src/ may import which (README "Layout" has the map). `npm run lint` fails on a
 * forbidden arrow. Layers, top to bottom:
 *   entry      main.ts, server.ts, compose.ts (and compose/), scheduler-wiring.ts, cli/   (build objects, wire, start)
 *   edges      http/, scheduler/                                         (adapters over jobs and services)
 *   jobs       jobs/
 *   services   services/
 *   storage    storage/                                                  (all SQL, files, the database)
 *   domain     domain/                                                   (pure: no I/O, no clock)
 *   base       config.ts, logger.ts, errors.ts, abort.ts, version.ts, redact.ts, redirects.ts (anyone may import these)
 * An arrow may only point down (or sideways inside a folder); base imports only base.
 */
const ENTRY = '^src/(main|server|compose|scheduler-wiring)\\.ts$|^src/(cli|compose)/'
const BASE = '^src/(config|logger|errors|abort|version|redact|redirects)\\.ts$'

const may = (name, from, allowed, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: '^src/', pathNot: [`^${from.replace(/^\^/, '')}`, BASE, ...allowed] },
})

module.exports = {
  forbidden: [
    may('domain-is-pure', '^src/domain/', [], 'domain/ imports only domain/ and base'),
    may('datasource-beside-storage', '^src/datasource/', ['^src/domain/'], 'datasource/ imports only domain/ and base'),
    may('storage-below-services', '^src/storage/', ['^src/domain/'], 'storage/ imports only domain/ and base'),
    may(
      'services-below-jobs-and-edges',
      '^src/services/',
      ['^src/storage/', '^src/domain/'],
      'services/ imports only storage/, domain/ and base',
    ),
    may(
      'jobs-below-edges',
      '^src/jobs/',
      ['^src/services/', '^src/storage/', '^src/datasource/', '^src/domain/'],
      'jobs/ imports only services/, storage/, datasource/, domain/ and base',
    ),
    may(
      'http-is-an-edge',
      '^src/http/',
      ['^src/jobs/', '^src/services/', '^src/storage/', '^src/domain/'],
      'http/ never imports the scheduler, the CLI or the composition root',
    ),
    may(
      'scheduler-is-an-edge',
      '^src/scheduler/',
      ['^src/jobs/', '^src/storage/', '^src/domain/'],
      'scheduler/ never imports http/, services/, the CLI or the composition root: it gets handlers, not services',
    ),
    {
      name: 'base-imports-base',
      comment: 'config, logger, errors, abort and version are imported by every layer, so they import no layer',
      severity: 'error',
      from: { path: BASE },
      to: { path: '^src/', pathNot: BASE },
    },
    {
      name: 'nothing-imports-the-entry-layer',
      comment: 'only the entry layer (main, server, compose, scheduler-wiring, cli) builds and wires objects',
      severity: 'error',
      from: { path: '^src/', pathNot: ENTRY },
      to: { path: ENTRY },
    },
    {
      name: 'database-driver-only-in-storage',
      comment: 'SQL lives in storage/ repositories: nothing else talks to the database driver',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/storage/' },
      to: { path: 'node_modules/(pg|pg-cursor|kysely|pg-copy-streams)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-does-no-io',
      comment: 'domain/ is pure: no file, network, process or database module',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: '^(node:)?(fs|fs/promises|child_process|net|http|https|dgram|os|worker_threads)$|node_modules/(pg|kysely|pino|fastify)/',
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
