type Line = Record<string, any>;
export declare function breakdownTable(lines: Line[]): string;
export declare function mixedTables(lines: Line[]): string;
export declare function tablesBlock(breakdown: Line[], mixed: Line[]): string;
export declare function replaceBlock(text: string, block: string): string | null;
