import type { Metadata } from 'next';
import { WorkflowsView } from '@/components/workflows-view';
import { ViewPage } from '../view-page';

export const metadata: Metadata = { title: 'Workflows · Bullpen' };

export default function WorkflowsPage() {
  return <ViewPage View={WorkflowsView} />;
}
