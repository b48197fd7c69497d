import type { Metadata } from 'next';
import { DecisionsView } from '@/components/decisions-view';
import { ViewPage } from '../view-page';

export const metadata: Metadata = { title: 'Decisions · Bullpen' };

export default function DecisionsPage() {
  return <ViewPage View={DecisionsView} />;
}
