import { describe, expect, inject, it } from 'vitest';

/** /api/health on `bullpen start`: Next's route, not shadowed by the MCP fast path, open to all. */

const server = inject('server');

describe('/api/health', () => {
  it('answers without credentials: database, migrations and the job backlog, nothing of a workspace', async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('cache-control')).toContain('no-store');
    const body = await res.json();
    expect(body).toEqual({
      ok: true,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      database: { kind: 'pglite', ok: true, latency_ms: expect.any(Number) },
      migrations: { applied: expect.any(Number), latest: expect.stringMatching(/^\d{4}_.+\.sql$/), definitions: expect.any(Number) },
      jobs: { due: expect.any(Number), running: expect.any(Number), failed: 0, oldest_due_seconds: expect.any(Number) },
    });
    expect(body.migrations.latest >= '0007_jobs.sql').toBe(true);
    const text = JSON.stringify(body);
    expect(text).not.toContain(server.workspace);
    expect(text).not.toContain(server.actorId);
  });

  it('shows the sweeps the worker of `bullpen start` runs: each done once and scheduled again, nothing left due', async () => {
    // the worker starts with the server and runs each sweep at once; give it a moment on a busy machine
    let body: { jobs: { due: number; running: number } } | null = null;
    for (let i = 0; i < 40; i++) {
      body = await (await fetch(`${server.url}/api/health`)).json();
      if (body!.jobs.due === 0 && body!.jobs.running === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(body!.jobs).toMatchObject({ due: 0, running: 0 });
  });
});
