import type { Metadata } from 'next';
import { KnowledgeWithSources } from '@/components/sources-view';
import { ViewPage } from '../view-page';

export const metadata: Metadata = { title: 'Knowledge · Bullpen' };

export default function KnowledgePage() {
  return <ViewPage View={KnowledgeWithSources} />;
}
