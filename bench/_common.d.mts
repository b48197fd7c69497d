export declare function emit(record: Record<string, unknown>): void;
export declare function percentile(sorted: number[], p: number): number;
export declare function scratchPgDatabase(serverUrl: string, prefix: string): Promise<{ name: string; url: string; drop: () => Promise<void> }>;
