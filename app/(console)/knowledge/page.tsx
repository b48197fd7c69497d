import type { Metadata } from 'next';
import { KnowledgeView } from '@/components/knowledge-view';
import { ViewPage } from '../view-page';

export const metadata: Metadata = { title: 'Knowledge · Bullpen' };

export default function KnowledgePage() {
  return <ViewPage View={KnowledgeView} />;
}
