export declare const root: string;
export declare function freePort(): Promise<number>;
export declare function spawnServer(opts?: {
  env?: Record<string, string | undefined>;
  ready?: (output: string) => boolean;
  label?: string;
}): Promise<{
  url: string;
  adminToken: string;
  dir: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  output: () => string;
  pid: number | undefined;
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  stop: () => Promise<void>;
}>;
