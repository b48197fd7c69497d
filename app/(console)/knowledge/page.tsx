import type { Metadata } from 'next';
import { Suspense } from 'react';
import { KnowledgeView } from '@/components/knowledge-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Knowledge · Bullpen' };

export default async function KnowledgePage() {
  await requireSession();
  return (
    <Suspense>
      <KnowledgeView />
    </Suspense>
  );
}
