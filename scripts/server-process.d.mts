export declare const root: string;
export declare function freePort(): Promise<number>;
export declare function spawnServer(opts?: {
  env?: Record<string, string | undefined>;
  ready?: (output: string) => boolean;
  label?: string;
  /** --host for start (default 127.0.0.1); null passes no flag (the CLI's default). */
  host?: string | null;
  /** Reuse the directory of an earlier start (a restart). */
  dir?: string;
  /** Leave the directory in place on stop. */
  keep?: boolean;
}): Promise<{
  url: string;
  port: number;
  adminToken: string;
  dir: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  output: () => string;
  pid: number | undefined;
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  stop: () => Promise<void>;
}>;
