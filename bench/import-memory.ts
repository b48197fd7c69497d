/**
 * Import memory: how much memory `bullpen import` needs for an export of a given size. The same
 * export (BENCH_IMPORT_TASKS tasks with 2 KB bodies, their comments and history, one 1 MiB file)
 * is imported in fresh child processes two ways, each BENCH_IMPORT_ROUNDS times, alternating:
 *   parsed  the whole file read and parsed in memory, then imported (the baseline: what the import
 *           route did with a request body before it streamed)
 *   stream  the file read piece by piece (what the route and the CLI do now)
 * Each child reports its peak resident memory above what it held before the import began (the
 * kernel's maxrss, so a peak inside a synchronous parse is not missed) and the import's time. The
 * figures are ratios: extra memory per byte of export, and stream ÷ parsed for memory and time.
 * Target: memory that does not grow with the export (the stream's extra memory a small fraction
 * of the file, and the stream finishing with the JavaScript heap capped at BENCH_IMPORT_HEAP_MIB
 * (default 64 MiB), which the parsed import of the same file cannot). Postgres (DATABASE_URL, or a throwaway cluster), so the database's own memory is
 * not in the figures.
 */
import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPg } from '../lib/db/pg';
import { exportWorkspace, importWorkspace, importWorkspaceStream } from '../lib/server/export';
import { localStore, uploadAndAttach } from '../lib/server/files';
import { emit, envFields, root, runBench, scratchDatabase, seedWorkspace } from './lib';

const TASKS = Number(process.env.BENCH_IMPORT_TASKS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 3);
/** The V8 heap cap of the third pair of runs: the stream must finish under it, whatever the export's size. */
const HEAP_CAP_MIB = Number(process.env.BENCH_IMPORT_HEAP_MIB ?? 64);
const MiB = 1024 * 1024;

type ChildResult = { mode: string; base_rss_mib: number; peak_extra_mib: number; ms: number; rows: number };

/** One import in this process (a child): prints its result as one JSON line. */
async function child(mode: string, file: string, url: string, storeDir: string, slug: string): Promise<void> {
  const db = await openPg(url, { max: 2 });
  const store = localStore(storeDir);
  // warm what both modes load (the parser, the SQL client) before the baseline is read
  await db.query('select 1');
  global.gc?.();
  const base = process.memoryUsage().rss;
  const t0 = performance.now();
  const r =
    mode === 'parsed'
      ? await importWorkspace(db, JSON.parse(await readFile(file, 'utf8')), { slug, store })
      : await importWorkspaceStream(db, createReadStream(file, { highWaterMark: MiB }), { slug, store });
  const ms = performance.now() - t0;
  const peak = process.resourceUsage().maxRSS * 1024;
  await db.close();
  const rows = Object.values(r.counts).reduce((a, b) => a + b, 0);
  const out: ChildResult = { mode, base_rss_mib: +(base / MiB).toFixed(1), peak_extra_mib: +((peak - base) / MiB).toFixed(1), ms: Math.round(ms), rows };
  console.log(JSON.stringify(out));
}

function runChild(args: string[], heapMib?: number): Promise<ChildResult | null> {
  return new Promise((resolve, reject) => {
    const flags = ['--expose-gc', ...(heapMib ? [`--max-old-space-size=${heapMib}`] : []), '--import', 'tsx'];
    const p = spawn(process.execPath, [...flags, path.join(root, 'bench/import-memory.ts'), '--child', ...args], { stdio: ['ignore', 'pipe', heapMib ? 'ignore' : 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) {
        // under a heap cap, running out of memory is the answer, not a failure of the bench
        if (heapMib) resolve(null);
        else reject(new Error(`import child ${args[0]} exited ${code}: ${out}`));
      } else resolve(JSON.parse(line) as ChildResult);
    });
  });
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase({ prefix: 'bench_import' });
  const work = mkdtempSync(path.join(tmpdir(), 'bullpen-bench-import-'));
  try {
    const { db } = scratch;
    emit({ ...(await envFields('bench/import-memory.ts', scratch.admin)), tasks: TASKS, rounds: ROUNDS });
    console.error(`seeding ${TASKS} tasks…`);
    const ws = await seedWorkspace(db, { name: 'import-src', tasks: TASKS, agents: 1 });
    const body = 'Bodies carry the work: what to do, why, and how to tell it is done. '.repeat(30).slice(0, 2048);
    await db.query(`update public.tasks set body = $2 || ' #' || seq where tenant_id = $1`, [ws.tenantId, body]);
    await db.query(
      `insert into public.comments (tenant_id, object_type, object_id, author_actor_id, body)
       select tenant_id, 'task', id, created_by_actor_id, 'a comment on ' || seq from public.tasks where tenant_id = $1`,
      [ws.tenantId],
    );
    await db.query(
      `insert into public.activity (tenant_id, actor_id, verb, object_type, object_id, project_id)
       select tenant_id, created_by_actor_id, 'task.created', 'task', id, project_id from public.tasks where tenant_id = $1`,
      [ws.tenantId],
    );
    const store = localStore(path.join(work, 'files'));
    const agent = ws.agents[0];
    const [first] = await db.query<{ id: string }>(`select id from public.tasks where tenant_id = $1 order by seq limit 1`, [ws.tenantId]);
    await uploadAndAttach({ db, claims: agent.claims }, { object_type: 'task', object_id: first.id, filename: 'evidence.bin', content_type: 'application/octet-stream' }, new Uint8Array(MiB).fill(7), store);
    const slugRow = await db.query<{ slug: string }>(`select slug from public.tenants where id = $1`, [ws.tenantId]);
    const file = path.join(work, 'export.json');
    writeFileSync(file, JSON.stringify(await exportWorkspace(db, slugRow[0].slug, { store })));
    const size = statSync(file).size;
    emit({ bench: 'import-memory', what: 'export', file_mib: +(size / MiB).toFixed(1) });
    const results: Record<string, ChildResult[]> = { parsed: [], stream: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of round % 2 ? ['stream', 'parsed'] : ['parsed', 'stream']) {
        const r = (await runChild([mode, file, scratch.url, path.join(work, 'files'), `import-${mode}-${round}`]))!;
        results[mode].push(r);
        emit({ bench: 'import-memory', what: 'round', round, ...r, extra_per_file_byte: +((r.peak_extra_mib * MiB) / size).toFixed(3) });
      }
    }
    // the same imports with the JavaScript heap capped: which of them fit at all
    const capped: Record<string, boolean> = {};
    for (const mode of ['parsed', 'stream']) {
      const r = await runChild([mode, file, scratch.url, path.join(work, 'files'), `import-${mode}-capped`], HEAP_CAP_MIB);
      capped[mode] = !!r;
      emit({ bench: 'import-memory', what: 'heap-capped', mode, heap_cap_mib: HEAP_CAP_MIB, file_mib: +(size / MiB).toFixed(1), finished: !!r, ...(r ?? {}) });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const m = (mode: string, k: 'peak_extra_mib' | 'ms') => median(results[mode].map((r) => r[k]));
    emit({
      bench: 'import-memory',
      what: 'summary',
      file_mib: +(size / MiB).toFixed(1),
      rows: results.stream[0]?.rows,
      parsed_extra_mib: m('parsed', 'peak_extra_mib'),
      stream_extra_mib: m('stream', 'peak_extra_mib'),
      parsed_extra_per_file_byte: +((m('parsed', 'peak_extra_mib') * MiB) / size).toFixed(3),
      stream_extra_per_file_byte: +((m('stream', 'peak_extra_mib') * MiB) / size).toFixed(3),
      memory_stream_over_parsed: +(m('stream', 'peak_extra_mib') / m('parsed', 'peak_extra_mib')).toFixed(3),
      parsed_ms: m('parsed', 'ms'),
      stream_ms: m('stream', 'ms'),
      time_stream_over_parsed: +(m('stream', 'ms') / m('parsed', 'ms')).toFixed(2),
      heap_cap_mib: HEAP_CAP_MIB,
      parsed_fits_cap: capped.parsed,
      stream_fits_cap: capped.stream,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
    await scratch.close();
  }
}

if (process.argv[2] === '--child') {
  const [mode, file, url, storeDir, slug] = process.argv.slice(3);
  child(mode, file, url, storeDir, slug).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else runBench(main);
