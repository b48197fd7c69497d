import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { connectSnippets, mcpUrlFor, shellQuote } from './connect';

describe('mcpUrlFor', () => {
  it('is the plain endpoint without toolsets, and carries them as one query value with them', () => {
    expect(mcpUrlFor('http://localhost:3000/')).toBe('http://localhost:3000/api/mcp');
    expect(mcpUrlFor('http://localhost:3000', ['core', 'handoffs'])).toBe('http://localhost:3000/api/mcp?toolsets=core,handoffs');
  });

  it('puts the narrowed URL into the pasteable lines', () => {
    const { cli, json } = connectSnippets(mcpUrlFor('http://localhost:3000', ['core']), 'bp_live_x');
    // quoted: a bare ? is a glob in zsh ("no matches found") and & ends a command in any shell
    expect(cli).toContain(`bullpen 'http://localhost:3000/api/mcp?toolsets=core' --header`);
    expect(JSON.parse(json).mcpServers.bullpen.url).toBe('http://localhost:3000/api/mcp?toolsets=core');
  });

  it('prints a line a shell reads back as the same words, URL and header intact', () => {
    const url = mcpUrlFor('http://localhost:3000', ['core', 'handoffs']);
    const { cli } = connectSnippets(url, 'bp_live_x');
    // the shell's own word splitting, with a stand-in for claude that prints its arguments; failglob
    // makes bash refuse an unmatched glob as zsh does by default
    const words = execFileSync('bash', ['-O', 'failglob', '-c', `claude() { printf '%s\\n' "$@"; }; ${cli}`], { encoding: 'utf8' }).trimEnd().split('\n');
    expect(words).toEqual(['mcp', 'add', '--transport', 'http', 'bullpen', url, '--header', 'Authorization: Bearer bp_live_x']);
    expect(shellQuote('/tmp/plain-path.tar.gz')).toBe('/tmp/plain-path.tar.gz');
    expect(shellQuote("/tmp/it's here")).toBe(`'/tmp/it'\\''s here'`);
  });
});
