import { describe, expect, it } from 'vitest';
import { REMOTE_CASES } from '../../tests/fixtures/remotes';
import { normalizeRemote, stripCredentials } from './remote';

describe('normalizeRemote', () => {
  it.each(REMOTE_CASES)('%s → %s', (input, url) => {
    expect(normalizeRemote(input)?.url ?? null).toBe(url);
  });

  it('keys one repository however it is spelled, and keeps the display case', () => {
    const a = normalizeRemote('git@github.com:Acme/API.git')!;
    const b = normalizeRemote('https://token@github.com/acme/api/')!;
    expect(a.key).toBe('github.com/acme/api');
    expect(b.key).toBe(a.key);
    expect(a).toMatchObject({ host: 'github.com', owner: 'Acme', name: 'API' });
  });

  it('never returns credentials', () => {
    for (const [input] of REMOTE_CASES) {
      const n = normalizeRemote(input);
      if (n) expect(n.url).not.toMatch(/@|secret|token|abc/);
    }
    expect(stripCredentials('https://me:pw@host.example/x')).toBe('https://host.example/x');
    expect(stripCredentials('https://me:pw@host.example/a/b.git')).toBe('https://host.example/a/b');
  });
});
