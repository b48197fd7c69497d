/**
 * Git remotes, normalised the way the database does it (bullpen.normalize_remote): one repository
 * however its remote is spelled. The CLI uses this to strip credentials before a remote ever leaves
 * the machine; the table test in remote.test.ts runs the same cases through SQL.
 */

export type Remote = { host: string; owner: string; name: string; key: string; url: string };

const SCHEMES = new Set(['https', 'http', 'ssh', 'git', 'git+ssh', 'ssh+git']);

/**
 * `git@host:o/n.git`, `ssh://git@host:22/o/n`, `https://user:token@host/o/n` and `https://host/o/n/`
 * all become {host, owner, name, key: "host/o/n" lower-cased, url: "https://host/o/n"}. Local paths,
 * file:// URLs and anything without an owner and a name are not remotes: null.
 */
export function normalizeRemote(input: string | null | undefined): Remote | null {
  const v = (input ?? '').trim();
  if (!v || v.length > 2000) return null;
  let host: string;
  let path: string;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(v);
  if (scheme) {
    const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^/?#]*@)?(\[[^\]]*\]|[^/:?#]+)(?::[0-9]*)?(\/[^?#]*)?/.exec(v);
    if (!m || !SCHEMES.has(m[1].toLowerCase())) return null;
    host = m[2].toLowerCase();
    path = m[3] ?? '';
  } else if (/^(?:[^@/:\s]+@)?[^/:\s]+:[^/\\]/.test(v)) {
    const m = /^(?:[^@/:\s]+@)?([^/:\s]+):([^?#]*)/.exec(v)!;
    host = m[1].toLowerCase();
    path = m[2];
  } else return null;
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(host) || host.length > 253) return null;
  path = path.replace(/\/+$/, '').replace(/\.git$/i, '');
  const parts = path.split('/').filter(Boolean);
  if (parts.length < 2) return null;
  const name = parts[parts.length - 1];
  const owner = parts.slice(0, -1).join('/');
  if (/[\s\\]/.test(name) || /[\s\\]/.test(owner) || name === '.' || name === '..') return null;
  return { host, owner, name, key: `${host}/${owner}/${name}`.toLowerCase(), url: `https://${host}/${owner}/${name}` };
}

/** A remote without credentials: the normalised URL when it is a remote, else the input minus any user:password@. */
export function stripCredentials(input: string): string {
  const n = normalizeRemote(input);
  if (n) return n.url;
  return input.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, '$1');
}
