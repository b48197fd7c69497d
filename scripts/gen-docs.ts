import { readFileSync, writeFileSync } from 'node:fs';
import { readmeToolTable, spliceGenerated, toolsMarkdown } from '../lib/core/docs';

writeFileSync('docs/tools.md', toolsMarkdown());
writeFileSync('README.md', spliceGenerated(readFileSync('README.md', 'utf8'), 'tools', readmeToolTable()));
console.log('wrote docs/tools.md and the tool table in README.md');
