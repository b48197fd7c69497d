import { redirect } from 'next/navigation';
import { getSession } from '@/lib/console/auth';

export const dynamic = 'force-dynamic';

/** The front door: the console when signed in, else the sign-in page. */
export default async function Home() {
  redirect((await getSession()) ? '/projects' : '/auth/signin');
}
