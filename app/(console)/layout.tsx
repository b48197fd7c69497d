import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { ConsoleProviders, type Me } from '@/components/console-providers';
import { ConsoleShell } from '@/components/console-shell';
import { requireSession } from '@/lib/console/auth';
import { runTool } from '@/lib/console/ops';
import { supabaseConfig } from '@/lib/console/supabase';
import { getDb } from '@/lib/db';

export const dynamic = 'force-dynamic';

/** Every console page: a session is required; whoami (under the human's claims) names them. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await requireSession();
  const env = await runTool({ db: await getDb(), claims: session.claims }, 'whoami', { include: ['projects'] });
  const who = env as { ok: boolean; actor?: { id: string; display_name: string; is_owner: boolean } | null; tenant?: Me['tenant'] | null };
  if (!who.ok || !who.actor || !who.tenant) redirect('/auth/signin?error=session');
  const me: Me = { actor_id: who.actor.id, display_name: who.actor.display_name, is_owner: who.actor.is_owner, tenant: who.tenant };
  const sb = supabaseConfig();
  return (
    <ConsoleProviders me={me} supabase={sb ? { url: sb.url, anonKey: sb.anonKey } : null}>
      <ConsoleShell>{children}</ConsoleShell>
    </ConsoleProviders>
  );
}
