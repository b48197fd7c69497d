import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Writes files (path → text) under a new temporary directory; returns it and a remover. */
export function writeRepo(files: Record<string, string>): { root: string; remove: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'bp-code-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * A TypeScript repository with known dependents and one known cycle:
 * util ← a ← b ← c ← index (re-export), index requires a, lib.js requires util,
 * util ← cyc2 ⇄ cyc1; `@app/*` is a tsconfig path to src/*; zod is a package (no edge).
 */
export const TS_REPO: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', allowJs: true, paths: { '@app/*': ['./src/*'] } } }),
  'src/util.ts': 'export const util = 1;\n',
  'src/a.ts': "import { util } from './util';\nexport const a = util;\n",
  'src/b.ts': "import { a } from '@app/a';\nimport { z } from 'zod';\nexport const b = a;\n",
  'src/c.ts': "import { b } from './b.js';\nexport const c = b;\n",
  'src/index.tsx': "export * from './c';\nconst a = require('./a');\nimport type { T } from './types';\nexport const lazy = () => import('./lazy');\n",
  'src/types.ts': 'export type T = string;\n',
  'src/lazy.ts': 'export default 1;\n',
  'src/cyc1.ts': "import { two } from './cyc2';\nexport const one = two;\n",
  'src/cyc2.ts': "import { one } from './cyc1';\nimport { util } from './util';\nexport const two = util;\n",
  'lib.js': "const { util } = require('./src/util');\nmodule.exports = util;\n",
  // a string that looks like an import is not one
  'src/noise.ts': "export const text = \"import x from './util'\";\n",
};

/**
 * A Python repository laid out as packages, with known dependents and one known cycle:
 * pkg/core ← pkg/models (from .core) ← pkg/sub/views (from ..models) ← app (from pkg.sub import views);
 * pkg/core ← pkg/sub/helpers (import pkg.core) ← pkg/sub/views (from . import helpers);
 * loop_a ⇄ loop_b; os is the standard library (no edge).
 */
export const PY_REPO: Record<string, string> = {
  'pkg/__init__.py': '',
  'pkg/core.py': 'THING = 1\n',
  'pkg/models.py': 'from .core import THING\n\nclass M:\n    pass\n',
  'pkg/sub/__init__.py': '',
  'pkg/sub/views.py': 'from ..models import M\nfrom . import helpers\n',
  'pkg/sub/helpers.py': 'import pkg.core\n\ndef later():\n    import os\n    return os\n',
  'app.py': 'import os\nfrom pkg.sub import views\n',
  'loop_a.py': 'import loop_b\nX = 1\n',
  'loop_b.py': 'try:\n    from loop_a import X\nexcept ImportError:\n    X = 0\n',
  'notes.py': '"""import pkg.core is only text here"""\n',
};
