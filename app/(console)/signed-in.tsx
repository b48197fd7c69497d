import { Suspense, type ReactNode } from 'react';
import { requireSession } from '@/lib/console/auth';

/**
 * A console page whose view reads the URL's search params: the page checks the session itself (a page
 * renders alongside its layout, so it does not lean on the layout's check), then renders the view under
 * Suspense.
 */
export async function SignedInView({ children }: { children: ReactNode }) {
  await requireSession();
  return <Suspense>{children}</Suspense>;
}
