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
  it('runs on every path but the static build assets', () => {
    const re = new RegExp(`^${config.matcher[0]}$`);
    expect(re.test('/projects')).toBe(true);
    expect(re.test('/api/mcp')).toBe(true);
    expect(re.test('/_next/static/chunks/a.js')).toBe(false);
  });
});
