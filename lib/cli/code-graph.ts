import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

/**
 * Builds a repository's file dependency graph where the code is, with maintained parsers (no
 * regular expressions over source):
 * - JavaScript and TypeScript: the TypeScript compiler's preProcessFile (import/export from,
 *   require, import(), import type) and resolveModuleName with the repository's tsconfig.json
 *   (paths, baseUrl, moduleResolution), so `@/lib/x` and `./x.js` land on the file they mean;
 * - Python: tree-sitter's Python grammar (import and from-import statements anywhere in a file,
 *   relative imports by their dots), resolved against the repository's package layout (the root
 *   and src/, a module as mod.py or mod/__init__.py);
 * - Go: tree-sitter's Go grammar (import declarations), resolved through go.mod's module path to
 *   the package's directory: a file depends on every non-test file of a package it imports.
 * Imports that leave the repository (packages, the standard library) are not edges.
 */

export type CodeGraph = {
  files: string[];
  /** [importer, imported] pairs of indexes into files */
  imports: [number, number][];
  /** files[i] has dependents[i] files depending on it, directly or not */
  dependents: number[];
  /** each a loop of file indexes (the first is not repeated at the end) */
  cycles: number[][];
  languages: Record<string, number>;
};

const SKIP_DIRS = new Set(['node_modules', '.git', '.next', 'dist', 'build', 'coverage', '.venv', 'venv', '__pycache__', '.bullpen', 'vendor']);
const TS_EXT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

export function languageOf(file: string): 'typescript' | 'javascript' | 'python' | 'go' | null {
  if (/\.d\.(ts|mts|cts)$/.test(file)) return null;
  const ext = path.extname(file).toLowerCase();
  if (['.ts', '.tsx', '.mts', '.cts'].includes(ext)) return 'typescript';
  if (['.js', '.jsx', '.mjs', '.cjs'].includes(ext)) return 'javascript';
  if (ext === '.py') return 'python';
  if (ext === '.go') return 'go';
  return null;
}

function git(args: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, timeout: 30_000 }, (err, out) => resolve(err ? null : out));
  });
}

/** The repository's source files, relative to root: git's view (tracked and untracked, not ignored) where git knows it, else a walk. */
export async function listSourceFiles(root: string): Promise<string[]> {
  const listed = await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root);
  let files: string[];
  if (listed !== null) {
    files = listed.split('\0').filter(Boolean);
  } else {
    files = [];
    const walk = async (dir: string) => {
      for (const e of await readdir(path.join(root, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) await walk(rel);
        } else if (e.isFile()) files.push(rel);
      }
    };
    await walk('');
  }
  return [...new Set(files.map((f) => f.split(path.sep).join('/')))]
    .filter((f) => languageOf(f) !== null && !f.split('/').some((part) => SKIP_DIRS.has(part)))
    .sort();
}

type TreeSitter = {
  Parser: { new (): { setLanguage(l: unknown): void; parse(src: string): { rootNode: SyntaxNode; delete(): void } }; init(o: unknown): Promise<void> };
  Language: { load(file: string): Promise<unknown> };
};
type SyntaxNode = {
  type: string;
  text: string;
  namedChildren: SyntaxNode[];
  childrenForFieldName(name: string): SyntaxNode[];
  childForFieldName(name: string): SyntaxNode | null;
  descendantsOfType(types: string | string[]): SyntaxNode[];
};

let treeSitter: Promise<{ ts: TreeSitter; dir: string }> | null = null;
/** web-tree-sitter and its grammars from @vscode/tree-sitter-wasm, loaded once. */
async function loadTreeSitter(): Promise<{ ts: TreeSitter; dir: string }> {
  treeSitter ??= (async () => {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@vscode/tree-sitter-wasm');
    const mod = require('@vscode/tree-sitter-wasm') as TreeSitter;
    const dir = path.dirname(main);
    await mod.Parser.init({ locateFile: (f: string) => path.join(dir, f) });
    return { ts: mod, dir };
  })();
  return treeSitter;
}

async function grammar(name: 'python' | 'go') {
  const { ts: T, dir } = await loadTreeSitter();
  const parser = new T.Parser();
  parser.setLanguage(await T.Language.load(path.join(dir, `tree-sitter-${name}.wasm`)));
  return parser;
}

/** A Python module's import requests: {level, module, names} per import, from the syntax tree. */
export type PyImport = { level: number; module: string; names: string[] };

export function pythonImports(root: SyntaxNode): PyImport[] {
  const out: PyImport[] = [];
  for (const node of root.descendantsOfType(['import_statement', 'import_from_statement'])) {
    const dotted = (n: SyntaxNode) => (n.type === 'aliased_import' ? (n.childForFieldName('name')?.text ?? '') : n.text);
    if (node.type === 'import_statement') {
      for (const n of node.childrenForFieldName('name')) out.push({ level: 0, module: dotted(n), names: [] });
      continue;
    }
    const mod = node.childForFieldName('module_name');
    if (!mod) continue;
    let level = 0;
    let module = mod.text;
    if (mod.type === 'relative_import') {
      const prefix = mod.namedChildren.find((c) => c.type === 'import_prefix');
      level = prefix ? prefix.text.length : 0;
      module = mod.namedChildren.find((c) => c.type === 'dotted_name')?.text ?? '';
    }
    out.push({ level, module, names: node.childrenForFieldName('name').map(dotted) });
  }
  return out;
}

/** The roots Python resolves absolute imports from: the repository root and src/ where it exists. */
function pythonRoots(fileSet: Set<string>): string[] {
  const roots = [''];
  if ([...fileSet].some((f) => f.startsWith('src/') && f.endsWith('.py'))) roots.push('src/');
  return roots;
}

/** The file a Python import lands on (a module file or a package's __init__.py), or null. */
export function resolvePython(from: string, imp: PyImport, fileSet: Set<string>, roots: string[]): string[] {
  const moduleFile = (base: string): string | null => {
    if (fileSet.has(`${base}.py`)) return `${base}.py`;
    if (fileSet.has(`${base}/__init__.py`)) return `${base}/__init__.py`;
    return null;
  };
  const bases: string[] = [];
  if (imp.level > 0) {
    const parts = from.split('/').slice(0, -1);
    if (imp.level - 1 > parts.length) return [];
    const pkg = parts.slice(0, parts.length - (imp.level - 1)).join('/');
    bases.push([pkg, imp.module.replace(/\./g, '/')].filter(Boolean).join('/'));
  } else {
    for (const r of roots) bases.push(`${r}${imp.module.replace(/\./g, '/')}`);
  }
  const out: string[] = [];
  for (const base of bases) {
    // from pkg import mod: a submodule when there is one, else a name defined in the package
    const subs = imp.names.filter((n) => n !== '*').map((n) => moduleFile(base ? `${base}/${n.replace(/\./g, '/')}` : n.replace(/\./g, '/')));
    const found = subs.filter((s): s is string => s !== null);
    out.push(...found);
    if (found.length < subs.length || subs.length === 0) {
      const m = base ? moduleFile(base) : null;
      if (m) out.push(m);
    }
    if (out.length) break;
  }
  return out;
}

/** The Go import paths of a file, from the syntax tree. */
export function goImports(root: SyntaxNode): string[] {
  return root.descendantsOfType('import_spec').map((s) => (s.childForFieldName('path')?.text ?? '').replace(/^["`]|["`]$/g, '')).filter(Boolean);
}

/** tsconfig.json's compiler options (paths, baseUrl, moduleResolution), JavaScript allowed. */
function tsOptions(root: string): ts.CompilerOptions {
  const file = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
  let options: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext };
  if (file && path.dirname(file) === root) {
    const read = ts.readConfigFile(file, ts.sys.readFile);
    if (!read.error) options = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, file).options;
  }
  return { ...options, allowJs: true, resolveJsonModule: false, noEmit: true };
}

/** Builds the graph of the repository at root (files relative to it, forward slashes). */
export async function buildCodeGraph(root: string, opts: { files?: string[] } = {}): Promise<CodeGraph> {
  root = path.resolve(root);
  const files = opts.files ?? (await listSourceFiles(root));
  const index = new Map(files.map((f, i) => [f, i]));
  const fileSet = new Set(files);
  const dirs = new Set<string>();
  for (const f of files) for (let d = path.posix.dirname(f); d !== '.' && !dirs.has(d); d = path.posix.dirname(d)) dirs.add(d);
  const edges = new Set<number>();
  const imports: [number, number][] = [];
  const add = (from: number, to: number | undefined) => {
    if (to === undefined || to === from) return;
    const key = from * files.length + to;
    if (edges.has(key)) return;
    edges.add(key);
    imports.push([from, to]);
  };
  const abs = (rel: string) => path.join(root, rel);
  const relOf = (file: string) => {
    const r = path.relative(root, file).split(path.sep).join('/');
    return r.startsWith('..') ? null : r;
  };

  // JavaScript and TypeScript: resolution answered from the file list inside the repository
  const options = tsOptions(root);
  const inRepo = (p: string) => {
    const r = relOf(p);
    return r !== null && !r.split('/').includes('node_modules') ? r : null;
  };
  const host: ts.ModuleResolutionHost = {
    fileExists: (p) => {
      const r = inRepo(p);
      return r !== null ? fileSet.has(r) : ts.sys.fileExists(p);
    },
    directoryExists: (p) => {
      const r = inRepo(p);
      return r !== null ? r === '' || dirs.has(r) : (ts.sys.directoryExists?.(p) ?? false);
    },
    readFile: ts.sys.readFile,
    realpath: (p) => p,
    getCurrentDirectory: () => root,
  };
  const cache = ts.createModuleResolutionCache(root, (s) => s, options);
  let py: Awaited<ReturnType<typeof grammar>> | null = null;
  let go: Awaited<ReturnType<typeof grammar>> | null = null;
  const pyRoots = pythonRoots(fileSet);
  let goModule: string | null = null;
  const goByDir = new Map<string, number[]>();
  if (files.some((f) => f.endsWith('.go'))) {
    const mod = await readFile(abs('go.mod'), 'utf8').catch(() => '');
    goModule = mod.split('\n').map((l) => l.trim().split(/\s+/)).find((w) => w[0] === 'module')?.[1] ?? null;
    files.forEach((f, i) => {
      if (f.endsWith('.go') && !f.endsWith('_test.go')) {
        const d = path.posix.dirname(f);
        goByDir.set(d, [...(goByDir.get(d) ?? []), i]);
      }
    });
  }

  const languages: Record<string, number> = {};
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    const lang = languageOf(f)!;
    languages[lang] = (languages[lang] ?? 0) + 1;
    let src: string;
    try {
      src = await readFile(abs(f), 'utf8');
    } catch {
      continue;
    }
    if (TS_EXT.test(f)) {
      const pre = ts.preProcessFile(src, true, true);
      for (const ref of pre.importedFiles) {
        const r = ts.resolveModuleName(ref.fileName, abs(f), options, host, cache).resolvedModule;
        if (!r || r.isExternalLibraryImport) continue;
        const rel = relOf(r.resolvedFileName);
        if (rel) add(i, index.get(rel));
      }
    } else if (lang === 'python') {
      py ??= await grammar('python');
      const tree = py.parse(src);
      for (const imp of pythonImports(tree.rootNode)) for (const to of resolvePython(f, imp, fileSet, pyRoots)) add(i, index.get(to));
      tree.delete();
    } else if (lang === 'go' && goModule) {
      go ??= await grammar('go');
      const tree = go.parse(src);
      for (const p of goImports(tree.rootNode)) {
        if (p !== goModule && !p.startsWith(`${goModule}/`)) continue;
        for (const to of goByDir.get(p === goModule ? '.' : p.slice(goModule.length + 1)) ?? []) add(i, to);
      }
      tree.delete();
    }
  }
  const { dependents, cycles } = analyse(files.length, imports);
  return { files, imports, dependents, cycles, languages };
}

/**
 * Strongly connected components (Tarjan, iterative), one shortest loop per component of two or more
 * files, and each file's count of transitive dependents: the files that can reach it, found per
 * component over the condensation in topological order with a bitset of ancestors.
 */
export function analyse(n: number, imports: [number, number][], maxCycles = 1000): { dependents: number[]; cycles: number[][] } {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of imports) out[a].push(b);
  const idx = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const comp = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  const comps: number[][] = [];
  let counter = 0;
  for (let s = 0; s < n; s++) {
    if (idx[s] !== -1) continue;
    const work: [number, number][] = [[s, 0]];
    while (work.length) {
      const top = work[work.length - 1];
      const [v, k] = top;
      if (k === 0) {
        idx[v] = low[v] = counter++;
        stack.push(v);
        onStack[v] = 1;
      }
      if (k < out[v].length) {
        top[1]++;
        const w = out[v][k];
        if (idx[w] === -1) work.push([w, 0]);
        else if (onStack[w]) low[v] = Math.min(low[v], idx[w]);
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low[parent] = Math.min(low[parent], low[v]);
      }
      if (low[v] === idx[v]) {
        const c: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = comps.length;
          c.push(w);
        } while (w !== v);
        comps.push(c);
      }
    }
  }
  // Tarjan emits sinks first: walking the components backwards visits importers before what they import
  const words = Math.ceil(n / 32);
  const anc: (Uint32Array | null)[] = new Array(comps.length).fill(null);
  const preds: Set<number>[] = comps.map(() => new Set());
  for (const [a, b] of imports) if (comp[a] !== comp[b]) preds[comp[b]].add(comp[a]);
  const dependents = new Array<number>(n).fill(0);
  for (let c = comps.length - 1; c >= 0; c--) {
    let bits: Uint32Array | null = null;
    for (const p of preds[c]) {
      bits ??= new Uint32Array(words);
      const pb = anc[p];
      if (pb) for (let w = 0; w < words; w++) bits[w] |= pb[w];
      for (const m of comps[p]) bits[m >>> 5] |= 1 << (m & 31);
    }
    anc[c] = bits;
    let count = comps[c].length - 1;
    if (bits) for (let w = 0; w < words; w++) count += popcount(bits[w]);
    for (const m of comps[c]) dependents[m] = count;
  }
  const cycles: number[][] = [];
  for (const c of comps) {
    if (c.length < 2 || cycles.length >= maxCycles) continue;
    const start = Math.min(...c);
    const loop = shortestLoop(start, out, comp);
    if (loop) cycles.push(loop);
  }
  cycles.sort((a, b) => a.length - b.length || a[0] - b[0]);
  return { dependents, cycles };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The shortest loop from start back to itself inside its component (breadth first). */
function shortestLoop(start: number, out: number[][], comp: Int32Array): number[] | null {
  const prev = new Map<number, number>([[start, -1]]);
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q];
    for (const w of out[v]) {
      if (comp[w] !== comp[start]) continue;
      if (w === start) {
        const loop = [v];
        for (let x = prev.get(v)!; x !== -1; x = prev.get(x)!) loop.push(x);
        return loop.reverse();
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return null;
}

type Envelope = { ok: boolean; error?: { code: string; message: string; hint?: string }; [k: string]: unknown };
export type ToolCall = (tool: string, input: unknown) => Promise<Envelope>;

/** Batch sizes of an upload: within the tool's bounds and well under a 1 MB request. */
export const BATCH = { files: 5000, imports: 20_000 };

/**
 * Uploads a graph to a registered repository in batches (code_graph_upload); the last batch swaps
 * it in for the current one. Returns the last answer (its graph). Throws, naming the refusal, when a
 * batch is refused; the repository keeps its previous graph then.
 */
export async function uploadCodeGraph(call: ToolCall, repositoryId: string, g: CodeGraph, commit: string | null): Promise<Envelope> {
  const run = `index-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  let uploadId: string | undefined;
  const batches: Record<string, unknown>[] = [];
  for (let i = 0; i < g.files.length; i += BATCH.files) {
    batches.push({ files: g.files.slice(i, i + BATCH.files), dependents: g.dependents.slice(i, i + BATCH.files) });
  }
  for (let i = 0; i < g.imports.length; i += BATCH.imports) batches.push({ imports: g.imports.slice(i, i + BATCH.imports).flat() });
  if (!batches.length) batches.push({});
  // the longest loops are the least telling: keep what fits one request
  const cycles: number[][] = [];
  let size = 0;
  for (const c of g.cycles) {
    if (cycles.length >= 1000 || size + c.length + 1 > 40_000) break;
    cycles.push(c);
    size += c.length + 1;
  }
  let last: Envelope = { ok: false };
  for (let b = 0; b < batches.length; b++) {
    const done = b === batches.length - 1;
    const input = {
      repository_id: repositoryId,
      ...(uploadId ? { upload_id: uploadId } : commit ? { commit_sha: commit } : {}),
      ...batches[b],
      ...(done ? { done: true, ...(cycles.length ? { cycles: cycles.flatMap((c) => [c.length, ...c]) } : {}) } : {}),
      idempotency_key: `${run}-${b}`,
    };
    last = await call('code_graph_upload', input);
    if (!last.ok) throw new Error(`${last.error!.code}: ${last.error!.message}${last.error!.hint ? ` (${last.error!.hint})` : ''}`);
    uploadId = last.upload_id as string;
  }
  return last;
}

/**
 * `bullpen repo index [PATH]`: builds the graph of the repository at PATH and uploads it to the
 * registered repository (given, or registered from PATH's git remote), marked with HEAD.
 */
export async function indexRepository(opts: {
  root: string;
  call: ToolCall;
  repositoryId?: string;
  remote?: string | null;
  commit?: string | null;
  out?: Pick<Console, 'log'>;
}): Promise<{ repository_id: string; graph: unknown; files: number; imports: number; cycles: number; build_ms: number; upload_ms: number }> {
  const out = opts.out ?? console;
  let repositoryId = opts.repositoryId;
  if (!repositoryId) {
    if (!opts.remote) throw new Error('no repository: pass --repository-id, or run it in a checkout with a git remote');
    const reg = await opts.call('repo_register', { remote_url: opts.remote });
    if (!reg.ok) throw new Error(`${reg.error!.code}: ${reg.error!.message}`);
    repositoryId = reg.repository_id as string;
  }
  const t0 = performance.now();
  const g = await buildCodeGraph(opts.root);
  const t1 = performance.now();
  out.log(`indexed ${g.files.length} files, ${g.imports.length} imports, ${g.cycles.length} cycles (${Object.entries(g.languages).map(([k, v]) => `${k} ${v}`).join(', ') || 'no source files'})`);
  const last = await uploadCodeGraph(opts.call, repositoryId, g, opts.commit ?? null);
  const t2 = performance.now();
  out.log(`uploaded to repository ${repositoryId}${opts.commit ? ` at ${opts.commit.slice(0, 7)}` : ''}`);
  return {
    repository_id: repositoryId,
    graph: last.graph,
    files: g.files.length,
    imports: g.imports.length,
    cycles: g.cycles.length,
    build_ms: Math.round(t1 - t0),
    upload_ms: Math.round(t2 - t1),
  };
}
