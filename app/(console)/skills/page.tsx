import type { Metadata } from 'next';
import { SkillsView } from '@/components/skills-view';
import { ViewPage } from '../view-page';

export const metadata: Metadata = { title: 'Skills · Bullpen' };

export default function SkillsPage() {
  return <ViewPage View={SkillsView} />;
}
