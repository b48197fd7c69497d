#!/usr/bin/env node
// Completes package-lock.json with the optional native packages of other platforms (next's SWC
// binaries, tailwind's oxide) that npm could not look up when the lock was written: a registry
// mirror that serves Linux builds only answers 404 for the macOS and Windows ones, npm leaves them
// out of the lock, and `npm ci` then refuses the lock as out of sync. Each missing entry gets the
// version its parent pins and the os/cpu its name states, so `npm ci` skips it on other platforms
// and fetches it by name where it fits. Run after regenerating the lock: node scripts/lock-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const OS = ['android', 'darwin', 'freebsd', 'linux', 'win32', 'openbsd', 'netbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 'riscv64', 's390x', 'loong64', 'mips64el'];

/** os and cpu from a platform package's name (`@next/swc-darwin-arm64`, `…-linux-arm-gnueabihf`, `…-wasm32-wasi`). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  if (parts.includes('wasm32')) return { cpu: ['wasm32'] };
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find((c) => parts.includes(c));
  return os && cpu ? { os: [os], cpu: [cpu] } : null;
}

const added = [];
const unknown = [];
for (const [at, pkg] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const nested = `${at ? `${at}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) {
      unknown.push(`${name}@${version} (wanted by ${at || 'the root'})`);
      continue;
    }
    packages[`node_modules/${name}`] = { version, ...(platform.cpu ? { cpu: platform.cpu } : {}), ...(pkg.dev ? { dev: true } : {}), optional: true, ...(platform.os ? { os: platform.os } : {}) };
    added.push(`${name}@${version}`);
  }
}
const sorted = Object.keys(packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en')));
lock.packages = Object.fromEntries(sorted.map((k) => [k, packages[k]]));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added to the lock:\n  ${added.join('\n  ')}` : 'the lock already names every optional platform package');
if (unknown.length) {
  console.error(`missing from the lock, and not a platform package this script can describe:\n  ${unknown.join('\n  ')}`);
  process.exit(1);
}
