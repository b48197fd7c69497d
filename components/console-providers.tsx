'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, useContext, useState, type ReactNode } from 'react';
import { LiveProvider, type SupabaseLive } from '@/lib/console/client/live';
import { Toaster } from './toaster';

export type Me = {
  actor_id: string;
  display_name: string;
  is_owner: boolean;
  tenant: { id: string; slug: string; name: string };
};

const MeContext = createContext<Me | null>(null);

/** Everything a console page needs around it: the signed-in human, React Query, toasts, the live feed. */
export function ConsoleProviders({ me, supabase, children }: { me: Me; supabase: SupabaseLive; children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // the live feed keeps caches fresh; no polling, no refetch on focus
          queries: { staleTime: 60_000, refetchOnWindowFocus: false, retry: 1 },
          mutations: { retry: 0 },
        },
      }),
  );
  return (
    <MeContext.Provider value={me}>
      <QueryClientProvider client={client}>
        <Toaster>
          <LiveProvider tenantId={me.tenant.id} supabase={supabase}>
            {children}
          </LiveProvider>
        </Toaster>
      </QueryClientProvider>
    </MeContext.Provider>
  );
}

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe must be used inside <ConsoleProviders>');
  return me;
}
