import type { Metadata } from 'next';
import { KnowledgeView } from '@/components/knowledge-view';
import { SignedInView } from '../signed-in';

export const metadata: Metadata = { title: 'Knowledge · Bullpen' };

export default function KnowledgePage() {
  return <SignedInView><KnowledgeView /></SignedInView>;
}
