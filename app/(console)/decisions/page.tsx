import type { Metadata } from 'next';
import { DecisionsView } from '@/components/decisions-view';
import { SignedInView } from '../signed-in';

export const metadata: Metadata = { title: 'Decisions · Bullpen' };

export default function DecisionsPage() {
  return <SignedInView><DecisionsView /></SignedInView>;
}
