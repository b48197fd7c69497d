/**
 * Whether this tab is signing itself out. Its own sign-out reaches its live stream and its open
 * queries (a revoked session answers 401) while the form's POST is still on its way; those must
 * not send the tab to "your session has ended" over the sign-out page the POST lands on.
 */
let signingOut = false;

/** Called by a sign-out form as it submits. */
export function markSigningOut(): void {
  signingOut = true;
}

/** Sends the tab to the sign-in page because its session ended elsewhere (unless it is signing out). */
export function sessionEnded(): void {
  if (!signingOut && typeof window !== 'undefined') window.location.assign('/auth/signin?error=session');
}
