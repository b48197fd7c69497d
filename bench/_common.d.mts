export declare function emit(record: Record<string, unknown>): void;
export declare function percentile(sorted: number[], p: number): number;
