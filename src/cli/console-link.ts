/**
 * `bun run fpa:console-link [--as <name>]`: prints a one-time console sign-in link (valid
 * CONSOLE_LINK_TTL). While a server holds the local database the link is made by it (operator
 * token of the lock file); otherwise here. The address is CONSOLE_URL, or the address the server
 * listens on (the machine's LAN address when it listens on every interface), so the link opens
 * from another computer in the office too.
 */
import { parseArgs } from 'node:util';
import { consoleBaseOf, LINK_BASE_SETTINGS, runningServerBase } from '../app/console-base';
import { createFingerprintAttendance } from '../app/create';
import { signInPath } from '../modules/console';
import { loadSettings } from '../platform/config/settings';
import { FpaError } from '../platform/errors';
import { silentLogger } from '../platform/log';
import { callRunningServer, refusal, registerCommand } from './run';

/** Whom a link signs in when `--as` names no one: a name no username can be. */
const DEFAULT_ACTOR = 'admin (operator)';

interface SignInLink {
  sign_in_path: string;
  actor: string;
  expires_at: string;
}

function report(base: string, link: SignInLink): void {
  console.log(`fpa:console-link: a sign-in link for "${link.actor}", valid once until ${link.expires_at}:`);
  console.log(`${base}${link.sign_in_path}`);
}

async function consoleLinkCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { as: { type: 'string' } }, allowPositionals: false, strict: true });
  // The default is no one's username (a username has no space nor parenthesis): a user named
  // `admin` must not lock the operator out of the console this script is the way back into.
  const actor = values.as?.trim() || DEFAULT_ACTOR;
  const { settings } = loadSettings();
  const handed = await callRunningServer<SignInLink>('console-link', 'console-links/', { actor }, LINK_BASE_SETTINGS);
  if (handed) {
    if (handed.status !== 201) {
      const taken = handed.status === 409 ? '; choose another with --as' : '';
      console.error(`fpa:console-link: ${refusal(handed)}${taken}`);
      return 1;
    }
    report(runningServerBase(settings, handed), handed.json);
    return 0;
  }
  return linkHere(actor, settings);
}

/** Without a running server: the database opened here. A user's username is refused (exit 1), as the server refuses it. */
async function linkHere(actor: string, settings: ReturnType<typeof loadSettings>['settings']): Promise<number> {
  const fpa = await createFingerprintAttendance({ startJobs: false, logger: silentLogger });
  try {
    const link = await fpa.service.createConsoleLink(actor, { by: 'operator' });
    report(consoleBaseOf(settings, settings.PORT), {
      actor,
      sign_in_path: signInPath(link.token),
      expires_at: new Date(link.expiresAt).toISOString(),
    });
    return 0;
  } catch (error) {
    if (!(error instanceof FpaError && error.code === 'conflict')) throw error;
    console.error(`fpa:console-link: ${error.message}; choose another with --as`);
    return 1;
  } finally {
    await fpa.close();
  }
}

registerCommand(
  'console-link',
  consoleLinkCommand,
  `usage: npm run fpa:console-link [-- --as <name>]\nPrints a one-time sign-in link to the web console (valid CONSOLE_LINK_TTL), at CONSOLE_URL or this machine’s LAN address; --as names who signs in (default: ${DEFAULT_ACTOR}), never a user’s username (users sign in themselves).`,
);
