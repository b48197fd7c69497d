import { writeFileSync } from 'node:fs';
import { toolsMarkdown } from '../lib/core/docs';

writeFileSync('docs/tools.md', toolsMarkdown());
console.log('wrote docs/tools.md');
