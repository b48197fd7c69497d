import type { ReactNode } from 'react';

/**
 * The frame of the sign-in pages (`/auth/signin`, `/auth/link`): a centred card on the page with the
 * Bullpen mark at its top, holding `children` below it.
 */
export function SignInCard({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 p-6">
      <div className="w-full max-w-[420px] rounded-xl border border-zinc-200 bg-white p-7 shadow-sm">
        <div className="mb-5 flex items-center gap-2">
          <span className="inline-flex size-7 items-center justify-center rounded-md bg-zinc-900 text-[13px] font-bold text-white">B</span>
          <span className="text-[15px] font-semibold">Bullpen</span>
        </div>
        {children}
      </div>
    </main>
  );
}
