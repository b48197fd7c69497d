export declare function startLocalPostgres(opts?: { settings?: Record<string, string | number> }): Promise<{
  url: string;
  stop: () => void;
  restart: (opts?: { mode?: 'immediate' | 'fast'; downMs?: number }) => Promise<void>;
  port: number;
  log: string;
} | null>;
