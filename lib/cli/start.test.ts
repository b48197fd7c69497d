import { describe, expect, it } from 'vitest';
import { servedDirectly } from './start';

describe('the MCP fast path of bullpen start', () => {
  it('takes /api/mcp only, so every other route (health, events, the console) reaches Next', () => {
    expect(servedDirectly('/api/mcp')).toBe(true);
    expect(servedDirectly('/api/mcp?toolsets=core')).toBe(true);
    for (const url of ['/api/health', '/api/health?x=1', '/api/mcpx', '/api/mcp/other', '/api/events', '/', undefined]) {
      expect(servedDirectly(url), String(url)).toBe(false);
    }
  });
});
