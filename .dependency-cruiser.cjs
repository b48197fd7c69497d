// The layering rules of docs/architecture.md ("Dependency rules"), checked by
// scripts/dependency-rules.test.ts in `npm test`. Dependencies point one way: the surfaces (app/,
// components/, lib/cli, lib/mcp, lib/console) sit on lib/server, which wires lib/core (the contract)
// to lib/db (the database port), lib/jobs and lib/memory; lib/shared is the vocabulary all of them
// speak. Colocated tests may reach across layers (they prove the pieces together) and are not checked.

/** A rule that forbids `from` (a layer's folder) to import any of `to` (folders), tests excepted. */
function layer(name, from, to, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: `^(${from})/`, pathNot: '\\.test\\.tsx?$' },
    to: { path: `^(${to.join('|')})/` },
  };
}

const UPPER = ['app', 'components', 'bin'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    layer('shared-is-a-leaf', 'lib/shared', ['lib/(?!shared/)[^/]+', ...UPPER], 'lib/shared holds types every layer speaks; it imports nothing of ours.'),
    layer(
      'core-is-the-contract',
      'lib/core',
      ['lib/db', 'lib/server', 'lib/console', 'lib/mcp', 'lib/cli', 'lib/jobs', 'lib/memory', ...UPPER],
      'lib/core defines the ports it needs (lib/core/ports.ts); the outer layers supply them.',
    ),
    layer(
      'db-is-the-port',
      'lib/db',
      ['lib/core', 'lib/server', 'lib/console', 'lib/mcp', 'lib/cli', 'lib/jobs', 'lib/memory', ...UPPER],
      'lib/db runs SQL and knows nothing of the tools above it.',
    ),
    layer(
      'memory-below-the-server',
      'lib/memory',
      ['lib/core', 'lib/server', 'lib/console', 'lib/mcp', 'lib/cli', 'lib/jobs', ...UPPER],
      'lib/memory embeds text; lib/server plugs it into the contract (lib/server/wiring.ts).',
    ),
    layer(
      'jobs-below-the-server',
      'lib/jobs',
      ['lib/server', 'lib/console', 'lib/mcp', 'lib/cli', ...UPPER],
      'lib/jobs runs work outside the writing transaction; the surfaces start it.',
    ),
    layer('server-below-the-surfaces', 'lib/server', ['lib/console', 'lib/mcp', 'lib/cli', ...UPPER], 'lib/server is shared by every surface and imports none.'),
    layer('mcp-is-a-surface', 'lib/mcp', ['lib/console', 'lib/cli', ...UPPER], 'The MCP adapter knows neither the console nor the CLI.'),
    layer('console-is-a-surface', 'lib/console', ['lib/mcp', 'lib/cli', ...UPPER], 'The console logic knows neither the MCP adapter nor the CLI, nor the pages above it.'),
    layer('cli-below-the-app', 'lib/cli', ['app', 'components'], 'The CLI never imports pages or components.'),
    layer(
      'components-are-the-browser',
      'components',
      ['app', 'bin', 'lib/db', 'lib/server', 'lib/jobs', 'lib/memory', 'lib/cli'],
      'Components run in the browser: they talk to the server through lib/console/client, never to its internals, and never import pages.',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|\\.next)/' },
    // type-only imports count: a type from another layer is still an arrow into it
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.mts', '.mjs', '.js', '.cjs', '.json'] },
  },
};
