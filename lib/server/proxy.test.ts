import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { config, proxy } from '../../proxy';

/** The wall Next itself runs (proxy.ts), for hosts other than `bullpen start`. */
describe('proxy.ts', () => {
  it('answers 403 to a foreign Host or Origin and lets localhost through', async () => {
    const evil = proxy(new NextRequest('http://evil.example.com/projects', { headers: { host: 'evil.example.com' } }));
    expect(evil.status).toBe(403);
    expect((await evil.json()).error.code).toBe('FORBIDDEN');
    const origin = proxy(new NextRequest('http://localhost:3000/api/console/tool', { method: 'POST', headers: { host: 'localhost:3000', origin: 'http://evil.example.com' } }));
    expect(origin.status).toBe(403);
    const ok = proxy(new NextRequest('http://localhost:3000/projects', { headers: { host: 'localhost:3000' } }));
    expect(ok.headers.get('x-middleware-next')).toBe('1');
  });
  it('refuses a page of another localhost port, and forbids framing on every answer', () => {
    const other = proxy(new NextRequest('http://localhost:3000/auth/session', { method: 'POST', headers: { host: 'localhost:3000', origin: 'http://localhost:5173' } }));
    expect(other.status).toBe(403);
    const page = proxy(new NextRequest('http://localhost:3000/projects', { headers: { host: 'localhost:3000' } }));
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(other.headers.get('x-frame-options')).toBe('DENY');
  });
  it('leaves /api/mcp to the endpoint, which answers its refusals as JSON-RPC errors', () => {
    const mcp = proxy(new NextRequest('http://evil.example.com/api/mcp', { method: 'POST', headers: { host: 'evil.example.com' } }));
    expect(mcp.headers.get('x-middleware-next')).toBe('1');
  });
  it('runs on every path but the static build assets', () => {
    const re = new RegExp(`^${config.matcher[0]}$`);
    expect(re.test('/projects')).toBe(true);
    expect(re.test('/api/mcp')).toBe(true);
    expect(re.test('/_next/static/chunks/a.js')).toBe(false);
  });
});
