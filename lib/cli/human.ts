import { createSignInToken, hasSignedIn, inviteHuman, signInTtlSeconds, signInUrl, type Invite } from '../console/signin';
import { commandArgs, printResult, usageExit } from './args';
import { adminStep } from './server-file';
import { addBannerHook } from './start';

function ttlText(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : `${Math.round(seconds / 60)} min`;
}

/**
 * `bullpen human invite NAME [--workspace SLUG] [--email ADDRESS] [--json]`: registers a human (the
 * workspace is created when SLUG is new; its first human becomes the owner) and prints a one-time
 * console sign-in link. Inviting the same name again issues a fresh link for the same person.
 * Works while the server runs (through its admin route) and when it does not.
 */
export async function humanInvite(argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(argv, { workspace: { type: 'string', short: 'w' }, email: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length !== 1) {
    return usageExit(
      'Usage: bullpen human invite NAME [--workspace SLUG] [--email ADDRESS] [--json]\n\n' +
        'Registers a human in the workspace (created when new) and prints a one-time sign-in link for the console.',
      !!values.help,
    );
  }
  const name = positionals[0];
  const { result: inv, base } = await adminStep<Invite>('humans', { name, workspace: values.workspace, email: values.email }, (db) =>
    inviteHuman(db, { name, workspace: values.workspace, email: values.email }),
  );
  const url = signInUrl(base, inv.token);
  return printResult(
    values.json,
    { workspace: inv.workspace.slug, actor_id: inv.actor_id, display_name: inv.display_name, is_owner: inv.is_owner, url, expires_at: inv.expires_at },
    [
      `${inv.display_name} ${inv.created_actor ? 'is invited to' : 'already belongs to'} workspace ${inv.workspace.slug}` +
        `${inv.created_workspace ? ' (created now)' : ''}${inv.is_owner ? ' as its owner' : ''}.`,
      '',
      `One-time sign-in link (expires ${new Date(inv.expires_at).toLocaleString()}):`,
      `  ${url}`,
    ].join('\n'),
  );
}

/**
 * Adds the console sign-in line to the start banner: a fresh one-time link for the owner until they
 * have signed in once, then the command that prints a new link.
 */
export function registerSignInBanner(): void {
  addBannerHook(async ({ db, url, first }) => {
    if (!first.owner) return [];
    if (!first.created && (await hasSignedIn(db, first.workspace.id, first.owner.id))) {
      return [`  Sign in    npx bullpen human invite "${first.owner.display_name}"   (prints a fresh one-time link)`];
    }
    const link = await createSignInToken(db, {
      tenantId: first.workspace.id,
      actorId: first.owner.id,
      purpose: first.created ? 'first_start' : 'invite',
      mintedBy: { via: 'start' },
    });
    return [`  Sign in    ${signInUrl(url, link.token)}`, `             (one-time link for ${first.owner.display_name}, expires in ${ttlText(signInTtlSeconds())})`];
  });
}
