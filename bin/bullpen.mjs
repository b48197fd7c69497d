#!/usr/bin/env node
// The bullpen command. Registers the TypeScript loader, then hands over to lib/cli/main.ts.
import { register } from 'tsx/esm/api';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.env.BULLPEN_ROOT ??= root;
register();
const { main } = await import(pathToFileURL(path.join(root, 'lib/cli/main.ts')).href);
process.exitCode = await main(process.argv.slice(2));
