import type { Metadata } from 'next';
import { CouncilView } from '@/components/council-view';
import { ViewPage } from '../view-page';

export const metadata: Metadata = { title: 'Council · Bullpen' };

export default function CouncilPage() {
  return <ViewPage View={CouncilView} />;
}
