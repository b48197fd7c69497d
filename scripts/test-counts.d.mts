export type Counts = { passed: number; failed: number; skipped: number; flaky: number; failures: string[]; flakyNames: string[] };
export declare function emptyCounts(): Counts;
export declare function addCounts(into: Counts, more: Counts): Counts;
export declare function countVitest(report: unknown, root?: string): Counts;
export declare function countPlaywright(report: unknown): Counts;
export declare function settleStep(step: string, ok: boolean, counts: Counts | null): Counts;
export declare function closingLine(c: Counts): string;
