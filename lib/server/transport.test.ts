import { afterEach, describe, expect, it } from 'vitest';
import { requestOrigin } from './config';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BodyTooLarge, checkTransport, clientAddress, hostAllowed, isLoopback, JsonRpcIdScanner, originAllowed, PEER_HEADER, readBody, readBodyText, spoolBody, stampPeer } from './transport';

const saved = { ...process.env };
afterEach(() => {
  for (const k of ['BULLPEN_PUBLIC_URL', 'BULLPEN_ALLOWED_HOSTS', 'BULLPEN_ALLOWED_ORIGINS', 'BULLPEN_TRUST_PROXY']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe('the Host allowlist', () => {
  it('answers localhost names on any port', () => {
    for (const h of ['localhost', 'localhost:3000', '127.0.0.1:3000', '127.0.0.2', '[::1]:3000', 'app.localhost:3000']) expect(hostAllowed(h), h).toBe(true);
  });
  it('refuses every other name, a missing Host, and garbage', () => {
    for (const h of ['evil.example.com', 'evil.example.com:3000', 'localhost.evil.com', '10.0.0.5:3000', '', null, 'a b', 'localhost@evil.com', 'evil.com/x'])
      expect(hostAllowed(h), String(h)).toBe(false);
  });
  it('adds BULLPEN_PUBLIC_URL’s host and BULLPEN_ALLOWED_HOSTS (names, name:port, *.domain)', () => {
    process.env.BULLPEN_PUBLIC_URL = 'https://bullpen.example.com/';
    process.env.BULLPEN_ALLOWED_HOSTS = 'ops.internal:8443, *.team.example';
    expect(hostAllowed('bullpen.example.com')).toBe(true);
    expect(hostAllowed('bullpen.example.com:443')).toBe(true);
    expect(hostAllowed('ops.internal:8443')).toBe(true);
    expect(hostAllowed('ops.internal:9000')).toBe(false);
    expect(hostAllowed('a.team.example')).toBe(true);
    expect(hostAllowed('team.example.evil.com')).toBe(false);
    expect(hostAllowed('evil.example.com')).toBe(false);
  });
  it('tells loopback binds from network ones', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.4')).toBe(false);
  });
});

describe('the Origin check', () => {
  const at = (host: string, url?: string) => ({ url, headers: new Headers({ host }) });
  it('lets a request without Origin through (agents and CLIs) and refuses Origin: null', () => {
    expect(originAllowed(null, at('localhost:3000'))).toBe(true);
    expect(originAllowed('null', at('localhost:3000'))).toBe(false);
  });
  it('needs the server’s own origin exactly (scheme, host and port), or one listed in BULLPEN_ALLOWED_ORIGINS', () => {
    expect(originAllowed('http://localhost:3000', at('localhost:3000'))).toBe(true);
    expect(originAllowed('http://localhost:3000/', at('localhost:3000'))).toBe(true);
    // a page on another local port is another origin: it signed a victim into an attacker's workspace
    expect(originAllowed('http://localhost:4000', at('localhost:3000'))).toBe(false);
    expect(originAllowed('http://127.0.0.1:3000', at('localhost:3000'))).toBe(false);
    expect(originAllowed('https://localhost:3000', at('localhost:3000'))).toBe(false);
    expect(originAllowed('http://localhost', at('localhost:3000'))).toBe(false);
    expect(originAllowed('http://evil.example.com', at('localhost:3000'))).toBe(false);
    expect(originAllowed('file://localhost', at('localhost:3000'))).toBe(false);
    // the scheme is the request URL's when it is absolute
    expect(originAllowed('https://localhost:3000', at('localhost:3000', 'https://localhost:3000/api/x'))).toBe(true);
    process.env.BULLPEN_ALLOWED_ORIGINS = 'https://inspector.example';
    expect(originAllowed('https://inspector.example', at('localhost:3000'))).toBe(true);
    expect(originAllowed('https://inspector.example:8443', at('localhost:3000'))).toBe(false);
  });
  it('takes BULLPEN_PUBLIC_URL’s origin, and X-Forwarded-Proto/Host only behind a trusted proxy', () => {
    process.env.BULLPEN_PUBLIC_URL = 'https://bullpen.example.com/base';
    expect(originAllowed('https://bullpen.example.com', at('localhost:3000'))).toBe(true);
    expect(originAllowed('http://bullpen.example.com', at('localhost:3000'))).toBe(false);
    const fwd = { headers: new Headers({ host: 'localhost:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'ops.example' }) };
    expect(originAllowed('https://ops.example', fwd)).toBe(false);
    process.env.BULLPEN_TRUST_PROXY = '1';
    expect(originAllowed('https://ops.example', fwd)).toBe(true);
  });
  it('refuses a rebinding request (foreign Host and Origin) with 403 before anything else', async () => {
    const res = checkTransport({ headers: new Headers({ host: 'evil.example.com', origin: 'http://evil.example.com' }) });
    expect(res?.status).toBe(403);
    expect((await res!.json()).error.code).toBe('FORBIDDEN');
    expect(checkTransport({ headers: new Headers({ host: 'localhost:3000', origin: 'http://evil.example.com' }) })?.status).toBe(403);
    expect(checkTransport({ headers: new Headers({ host: 'localhost:3000', origin: 'http://localhost:3001' }) })?.status).toBe(403);
    expect(checkTransport({ headers: new Headers({ host: 'localhost:3000', origin: 'http://localhost:3000' }) })).toBeNull();
  });
});

describe('X-Forwarded-*', () => {
  const req = (headers: Record<string, string>) => ({ url: 'http://localhost:3000/x', headers: new Headers({ host: 'localhost:3000', ...headers }) });
  it('is ignored unless BULLPEN_TRUST_PROXY is set', () => {
    expect(requestOrigin(req({ 'x-forwarded-host': 'evil.example.com', 'x-forwarded-proto': 'https' }))).toBe('http://localhost:3000');
    process.env.BULLPEN_TRUST_PROXY = '1';
    expect(requestOrigin(req({ 'x-forwarded-host': 'bullpen.example.com, other', 'x-forwarded-proto': 'https' }))).toBe('https://bullpen.example.com');
    expect(requestOrigin(req({ 'x-forwarded-proto': 'gopher' }))).toBe('http://localhost:3000');
  });
});

describe('body limits', () => {
  it('refuse a declared length over the limit before reading, and a chunked body once it passes it', async () => {
    const big = new Request('http://localhost/x', { method: 'POST', body: 'x'.repeat(100), headers: { 'content-length': '100' } });
    await expect(readBodyText(big, 10)).rejects.toBeInstanceOf(BodyTooLarge);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('y'.repeat(10)));
        c.close();
      },
    });
    // @ts-expect-error duplex is needed for a streamed body
    const chunked = new Request('http://localhost/x', { method: 'POST', body: stream, duplex: 'half' });
    await expect(readBodyText(chunked, 50)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(await readBodyText(new Request('http://localhost/x', { method: 'POST', body: 'ok' }), 10)).toBe('ok');
  });
});

describe('the one body loop', () => {
  const stream = (parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    }) as unknown as AsyncIterable<Uint8Array>;

  it('keeps a body within the limit, and drains one over it to its end (the connection stays usable)', async () => {
    const ok = await readBody(stream(['ab', 'cd']), { limit: 10 });
    expect(ok).toMatchObject({ size: 4, complete: true });
    expect(ok.bytes!.toString()).toBe('abcd');
    const over = await readBody(stream(['x'.repeat(8), 'y'.repeat(8), 'z'.repeat(8)]), { limit: 10, drainUpTo: 100 });
    expect(over).toEqual({ bytes: null, size: 24, complete: true });
    // past what it may drain it stops reading; a declared length past it is not read at all
    expect(await readBody(stream(['x'.repeat(80), 'y'.repeat(80)]), { limit: 10, drainUpTo: 100 })).toMatchObject({ bytes: null, complete: false });
    expect(await readBody(stream(['x']), { limit: 10, drainUpTo: 100, declared: 1000 })).toEqual({ bytes: null, size: 0, complete: false });
  });

  it('finds a JSON-RPC id in a body too large to keep, wherever the id stands', async () => {
    const find = async (text: string, chunk = 7) => {
      const scanner = new JsonRpcIdScanner();
      const parts = text.match(new RegExp(`[\\s\\S]{1,${chunk}}`, 'g'))!;
      await readBody(stream(parts), { limit: 0, drainUpTo: 1e9, scan: (c) => scanner.push(c) });
      return scanner.id;
    };
    const big = 'x'.repeat(5000);
    expect(await find(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'a', arguments: { body: big } } }))).toBe(7);
    // the Python SDK puts the id last
    expect(await find(JSON.stringify({ method: 'tools/call', params: { arguments: { id: 99, body: big, q: '"id": 5' } }, jsonrpc: '2.0', id: 'req-"8"' }))).toBe('req-"8"');
    expect(await find(`{ "params" : {"id":1,"x":[1,{"id":2}]} , "id" : -12 }`, 3)).toBe(-12);
    expect(await find(`[{"jsonrpc":"2.0","id":1}]`)).toBeNull();
    expect(await find(`{"jsonrpc":"2.0","id":null}`)).toBeNull();
    expect(await find(`{"jsonrpc":"2.0","method":"notifications/x"}`)).toBeNull();
    expect(await find(`not json at all`)).toBeNull();
  });
});

describe('the client address', () => {
  it('is the socket’s, the front door’s stamp, or X-Forwarded-For’s last hop behind a trusted proxy; a forged stamp is ignored', () => {
    expect(clientAddress(new Headers(), '10.1.1.1')).toBe('10.1.1.1');
    const raw: Record<string, string> = { [PEER_HEADER]: 'forged 6.6.6.6' };
    expect(clientAddress(new Headers(raw))).toBe('unknown');
    stampPeer(raw, '10.2.2.2');
    expect(clientAddress(new Headers(raw))).toBe('10.2.2.2');
    const fwd = new Headers({ 'x-forwarded-for': '6.6.6.6, 10.3.3.3' });
    expect(clientAddress(fwd, '127.0.0.1')).toBe('127.0.0.1');
    process.env.BULLPEN_TRUST_PROXY = '1';
    expect(clientAddress(fwd, '127.0.0.1')).toBe('10.3.3.3');
  });
});

describe('a body spooled to disk (the import route)', () => {
  const streamed = (parts: string[], headers: Record<string, string> = {}) =>
    new Request('http://localhost/x', {
      method: 'POST',
      headers,
      body: new ReadableStream({
        start(c) {
          for (const p of parts) c.enqueue(new TextEncoder().encode(p));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });

  it('writes every chunk to a private file and answers its size', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-spool-'));
    try {
      const file = path.join(dir, 'body');
      expect(await spoolBody(streamed(['{"a":', '1,"b":', '"ü"}']), 100, file)).toBe(Buffer.byteLength('{"a":1,"b":"ü"}'));
      expect(readFileSync(file, 'utf8')).toBe('{"a":1,"b":"ü"}');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a body past the limit, declared or streamed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-spool-'));
    try {
      await expect(spoolBody(streamed(['x'.repeat(60), 'x'.repeat(60)]), 100, path.join(dir, 'a'))).rejects.toBeInstanceOf(BodyTooLarge);
      await expect(spoolBody(streamed(['x'], { 'content-length': '5000' }), 100, path.join(dir, 'b'))).rejects.toBeInstanceOf(BodyTooLarge);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
