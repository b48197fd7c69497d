import { describe, expect, it } from 'vitest';
import { connectSnippets, mcpUrlFor } from './connect';

describe('mcpUrlFor', () => {
  it('is the plain endpoint without toolsets, and carries them as one query value with them', () => {
    expect(mcpUrlFor('http://localhost:3000/')).toBe('http://localhost:3000/api/mcp');
    expect(mcpUrlFor('http://localhost:3000', ['core', 'handoffs'])).toBe('http://localhost:3000/api/mcp?toolsets=core,handoffs');
  });

  it('puts the narrowed URL into the pasteable lines', () => {
    const { cli, json } = connectSnippets(mcpUrlFor('http://localhost:3000', ['core']), 'bp_live_x');
    expect(cli).toContain('http://localhost:3000/api/mcp?toolsets=core ');
    expect(JSON.parse(json).mcpServers.bullpen.url).toBe('http://localhost:3000/api/mcp?toolsets=core');
  });
});
