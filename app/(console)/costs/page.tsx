import type { Metadata } from 'next';
import { CostsView } from '@/components/costs-view';
import { ViewPage } from '../view-page';

export const metadata: Metadata = { title: 'Costs · Bullpen' };

export default function CostsPage() {
  return <ViewPage View={CostsView} />;
}
