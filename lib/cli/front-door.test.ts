import { afterEach, describe, expect, it } from 'vitest';
import { bindLines, frontDoor } from './start';

const saved = { ...process.env };
afterEach(() => {
  for (const k of ['BULLPEN_PUBLIC_URL', 'BULLPEN_ALLOWED_HOSTS', 'BULLPEN_IMPORT_MAX_BYTES']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

const req = (url: string, headers: Record<string, string>, method = 'POST') => ({ url, method, headers: new Headers({ host: 'localhost:3000', ...headers }) });

describe('the front door of bullpen start', () => {
  it('refuses a foreign Host or Origin on every path', () => {
    for (const path of ['/', '/projects', '/api/admin/agents', '/auth/session']) {
      expect(frontDoor(req(path, { host: 'evil.example.com' }))?.status, path).toBe(403);
      expect(frontDoor(req(path, { origin: 'http://evil.example.com' }))?.status, path).toBe(403);
      expect(frontDoor(req(path, {})), path).toBeNull();
    }
  });

  it('refuses another port of localhost as an Origin', () => {
    expect(frontDoor(req('/auth/session', { origin: 'http://localhost:4000' }))?.status).toBe(403);
    expect(frontDoor(req('/auth/session', { origin: 'http://localhost:3000' }))).toBeNull();
  });

  it('leaves every refusal of the MCP endpoint to it (JSON-RPC errors with the body drained)', () => {
    expect(frontDoor(req('/api/mcp', { host: 'evil.example.com' }))).toBeNull();
    expect(frontDoor(req('/api/mcp?toolsets=core', { origin: 'http://evil.example.com' }))).toBeNull();
    expect(frontDoor(req('/api/mcp', { 'content-length': String(2 * 1024 * 1024) }))).toBeNull();
  });

  it('holds the import route to its own limit (256 MiB by default), streamed, not to the routes’ 1 MiB', async () => {
    expect(frontDoor(req('/api/admin/import', { 'content-length': String(5 * 1024 * 1024) }))).toBeNull();
    expect(frontDoor(req('/api/admin/import', { 'content-length': String(200 * 1024 * 1024) }))).toBeNull();
    expect(frontDoor(req('/api/admin/import', { 'transfer-encoding': 'chunked' }))).toBeNull();
    const over = frontDoor(req('/api/admin/import', { 'content-length': String(257 * 1024 * 1024) }));
    expect(over?.status).toBe(413);
    expect((await over!.json()).error.hint).toContain('BULLPEN_IMPORT_MAX_BYTES');
    process.env.BULLPEN_IMPORT_MAX_BYTES = String(2 * 1024 * 1024);
    expect(frontDoor(req('/api/admin/import', { 'content-length': String(3 * 1024 * 1024) }))?.status).toBe(413);
    expect(frontDoor(req('/api/admin/agents', { 'content-length': String(2 * 1024 * 1024) }))?.status).toBe(413);
  });

  it('refuses a declared body over the limit, and a body of unknown length outside the MCP and import routes', () => {
    expect(frontDoor(req('/api/console/tool', { 'content-length': String(2 * 1024 * 1024) }))?.status).toBe(413);
    expect(frontDoor(req('/api/console/tool', { 'transfer-encoding': 'chunked' }))?.status).toBe(411);
    expect(frontDoor(req('/api/mcp', { 'transfer-encoding': 'chunked' }))).toBeNull();
    expect(frontDoor(req('/api/console/tool', { 'content-length': '100' }))).toBeNull();
  });
});

describe('the start banner', () => {
  it('says a loopback bind is this machine only', () => {
    expect(bindLines('127.0.0.1', 3000, true).join('\n')).toMatch(/127\.0\.0\.1:3000 \(this machine only/);
  });
  it('says --host 0.0.0.0 is on the network, and which names it answers', () => {
    const lines = bindLines('0.0.0.0', 3000, false).join('\n');
    expect(lines).toContain('ON THE NETWORK (--host 0.0.0.0)');
    expect(lines).toContain('only requests addressed to localhost');
    process.env.BULLPEN_PUBLIC_URL = 'https://bullpen.example.com';
    expect(bindLines('0.0.0.0', 3000, false).join('\n')).toContain('localhost, bullpen.example.com');
  });

  it('holds uploads to the upload limit, naming it, and other routes to theirs', async () => {
    const over = frontDoor(req('/api/files?object_type=task&object_id=X-1', { 'content-length': String(26 * 1024 * 1024) }));
    expect(over?.status).toBe(413);
    expect((await over!.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('25 MiB') });
    // a 20 MiB file is within the upload limit, though far over a console route's
    expect(frontDoor(req('/api/files?object_type=task&object_id=X-1', { 'content-length': String(20 * 1024 * 1024) }))).toBeNull();
    expect(frontDoor(req('/api/console/tool', { 'content-length': String(20 * 1024 * 1024) }))?.status).toBe(413);
  });
});
