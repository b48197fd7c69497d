import type { Metadata } from 'next';
import { InboxView } from '@/components/inbox-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Inbox · Bullpen' };

export default async function InboxPage() {
  await requireSession();
  return <InboxView />;
}
