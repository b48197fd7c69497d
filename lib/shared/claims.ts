// The vocabulary every layer shares: who a call runs as, and what a change event carries. Types
// only, importing nothing, so lib/core and lib/db can both speak it without importing each other.

/** The identity every call runs under; set as request.jwt.claims for the transaction. */
export type Claims = {
  sub: string;
  role: 'authenticated';
  tenant_id: string;
  actor_id: string;
  run_id?: string | null;
  /** The run this one was started under (X-Bullpen-Parent-Run / BULLPEN_PARENT_RUN_ID). */
  parent_run_id?: string | null;
  /** The series this run is a tick of (X-Bullpen-Run-Group / BULLPEN_RUN_GROUP). */
  run_group?: string | null;
  /** The repository the caller stands in, as a credential-free remote URL (X-Bullpen-Repo). */
  repo?: string | null;
  kind?: 'agent' | 'human' | 'service';
  /** May see sensitive items (bullpen.can_see_sensitive()): a key with the sensitive scope, or a person's session. */
  sensitive?: boolean;
};

export type Row = Record<string, unknown>;

/** A change event as the activity trigger emits it: ids only. */
export type ChangeEvent = {
  seq: number;
  tenant_id: string;
  project_id: string | null;
  object_type: string;
  object_id: string | null;
  verb: string;
  actor_id: string | null;
  at: string;
};
