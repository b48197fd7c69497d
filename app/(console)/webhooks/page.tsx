import type { Metadata } from 'next';
import { WebhooksView } from '@/components/webhooks-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Webhooks · Bullpen' };

export default async function WebhooksPage() {
  await requireSession();
  return <WebhooksView />;
}
