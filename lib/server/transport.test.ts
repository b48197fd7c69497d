import { afterEach, describe, expect, it } from 'vitest';
import { requestOrigin } from './config';
import { BodyTooLarge, checkTransport, hostAllowed, isLoopback, originAllowed, readBodyText } from './transport';

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
  it('lets a request without Origin through (agents and CLIs) and refuses Origin: null', () => {
    expect(originAllowed(null)).toBe(true);
    expect(originAllowed('null')).toBe(false);
  });
  it('needs an http(s) origin on an allowed host, or one listed in BULLPEN_ALLOWED_ORIGINS', () => {
    expect(originAllowed('http://localhost:3000')).toBe(true);
    expect(originAllowed('http://evil.example.com')).toBe(false);
    expect(originAllowed('file://localhost')).toBe(false);
    process.env.BULLPEN_ALLOWED_ORIGINS = 'https://inspector.example';
    expect(originAllowed('https://inspector.example')).toBe(true);
  });
  it('refuses a rebinding request (foreign Host and Origin) with 403 before anything else', async () => {
    const res = checkTransport({ headers: new Headers({ host: 'evil.example.com', origin: 'http://evil.example.com' }) });
    expect(res?.status).toBe(403);
    expect((await res!.json()).error.code).toBe('FORBIDDEN');
    expect(checkTransport({ headers: new Headers({ host: 'localhost:3000', origin: 'http://evil.example.com' }) })?.status).toBe(403);
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
