import { readFileSync, writeFileSync } from 'node:fs';
import { readmeToolTable, spliceGenerated, toolsMarkdown } from '../lib/core/docs';
import { envTable } from '../lib/shared/env';
import { dependencyRulesTable } from './dependency-rules';

writeFileSync('docs/tools.md', toolsMarkdown());
writeFileSync('README.md', spliceGenerated(readFileSync('README.md', 'utf8'), 'tools', readmeToolTable()));
writeFileSync('docs/operations.md', spliceGenerated(readFileSync('docs/operations.md', 'utf8'), 'env', envTable()));
writeFileSync('docs/architecture.md', spliceGenerated(readFileSync('docs/architecture.md', 'utf8'), 'dependency-rules', dependencyRulesTable()));
console.log('wrote docs/tools.md, the tool table in README.md, the environment table in docs/operations.md and the dependency rules in docs/architecture.md');
