import type { Metadata } from 'next';
import { SkillsView } from '@/components/skills-view';
import { SignedInView } from '../signed-in';

export const metadata: Metadata = { title: 'Skills · Bullpen' };

export default function SkillsPage() {
  return <SignedInView><SkillsView /></SignedInView>;
}
