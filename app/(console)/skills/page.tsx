import type { Metadata } from 'next';
import { Suspense } from 'react';
import { SkillsView } from '@/components/skills-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Skills · Bullpen' };

export default async function SkillsPage() {
  await requireSession();
  return (
    <Suspense>
      <SkillsView />
    </Suspense>
  );
}
