import { describe, expect, it } from 'vitest';
import { loopsOf } from '../core/code-graph';
import { analyse, languageOf } from './code-graph';
import { commandName, findTool, parseToolArgs } from './tools';

describe('the graph analysis', () => {
  it('counts transitive dependents through cycles and finds one shortest loop per cycle', () => {
    // 0 ← 1 ← 2 ⇄ 3 ← 4; 5 alone; 6 → 7 → 8 → 6
    const { dependents, cycles } = analyse(9, [[1, 0], [2, 1], [3, 2], [2, 3], [4, 3], [6, 7], [7, 8], [8, 6]]);
    expect(dependents).toEqual([4, 3, 2, 2, 0, 0, 2, 2, 2]);
    expect(cycles.map((c) => [...c].sort())).toEqual([[2, 3], [6, 7, 8]]);
  });

  it('names languages by extension and skips declaration files', () => {
    expect(['a.ts', 'b.tsx', 'c.mjs', 'd.py', 'e.go', 'f.d.ts', 'g.rs'].map(languageOf)).toEqual(['typescript', 'typescript', 'javascript', 'python', 'go', null, null]);
  });

  it('reads the flat cycles field back into loops, and refuses one that does not add up', () => {
    expect(loopsOf([2, 5, 6, 3, 1, 2, 3])).toEqual([[5, 6], [1, 2, 3]]);
    expect(loopsOf([3, 1, 2])).toBeNull();
    expect(loopsOf([1, 4])).toBeNull();
  });
});

describe('the CLI twins of the code graph tools', () => {
  it('are `code impact`, `code cycles`, `code critical-files` and `code graph-upload`', () => {
    for (const [words, name] of [[['code', 'impact'], 'code_impact'], [['code', 'cycles'], 'code_cycles'], [['code', 'critical-files'], 'code_critical_files'], [['code', 'graph-upload'], 'code_graph_upload']] as const) {
      const found = findTool([...words]);
      expect(found?.tool.name).toBe(name);
      expect(commandName(found!.tool)).toBe(words.join(' '));
    }
    const { input } = parseToolArgs(findTool(['code', 'impact'])!.tool, ['--repository-id', 'r', '--file-path', 'lib/a.ts', '--max-depth', '2']);
    expect(input).toEqual({ repository_id: 'r', file_path: 'lib/a.ts', max_depth: 2 });
  });
});
