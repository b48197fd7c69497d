import type { Metadata } from 'next';
import { FeedbackView } from '@/components/feedback-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Feedback · Bullpen' };

export default async function FeedbackPage() {
  await requireSession();
  return <FeedbackView />;
}
