import type { Metadata } from 'next';
import { Suspense } from 'react';
import { DecisionsView } from '@/components/decisions-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Decisions · Bullpen' };

export default async function DecisionsPage() {
  await requireSession();
  return (
    <Suspense>
      <DecisionsView />
    </Suspense>
  );
}
