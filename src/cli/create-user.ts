/**
 * `bun run fpa:create-user -- --username <name> --role <role> [--name …] [--email …] [--areas a,b]`:
 * invites a user and prints the one-time link where they choose a password (valid
 * USER_INVITE_TTL). The first owner is made this way. While a server holds the local database
 * the invite is made by it (operator token of the lock file), and the link's address is
 * CONSOLE_URL or the address that server listens on (its LAN address when it listens on every
 * interface); otherwise the invite is made here, at CONSOLE_URL or HOST's address and PORT.
 */
import { parseArgs } from 'node:util';
import { Value } from '@sinclair/typebox/value';
import { consoleBaseOf, LINK_BASE_SETTINGS, runningServerBase } from '../app/console-base';
import { createFingerprintAttendance } from '../app/create';
import { CONSOLE_PATH } from '../modules/console';
import { UserCreate, type UserCreateInput } from '../modules/users';
import { loadSettings } from '../platform/config/settings';
import { isRole, ROLES, type Role } from '../platform/http/caller';
import { silentLogger } from '../platform/log';
import { callRunningServer, refusal, registerCommand, UsageError } from './run';

const USAGE = `usage: npm run fpa:create-user -- --username <name> --role <${ROLES.join('|')}> [--name "Full Name"] [--email a@b] [--areas north,south]`;

interface Invited {
  username: string;
  role: string;
  invite_url: string;
  invite_expires_at: string;
}

function report(invited: Invited): void {
  console.log(
    `fpa:create-user: "${invited.username}" (${invited.role}) is invited. The link below sets their password; it works once, until ${invited.invite_expires_at}:`,
  );
  console.log(invited.invite_url);
}

/**
 * The invite checked against the API's own schema before anything is asked: the running server
 * would refuse it (400), and without one the service would take it as it is. The first value
 * refused is named, as its option.
 */
function refuseInvalid(input: UserCreateInput): void {
  const [first] = [...Value.Errors(UserCreate, input)];
  if (!first) return;
  const field = first.path.split('/')[1] ?? '';
  const given = field === 'areas' ? input.areas?.join(',') : first.value;
  // An optional value (`email`: a string or null) fails as a union: the string's own reason is the one to read.
  const reasons = first.errors.flatMap((branch) => [...branch].map((e) => e.message)).filter((m) => m !== 'Expected null');
  throw new UsageError(`--${field} "${String(given)}" is refused: ${reasons[0] ?? first.message}`);
}

async function createUserCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { username: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, areas: { type: 'string' } },
    allowPositionals: false,
    strict: true,
  });
  const username = values.username?.trim() ?? '';
  const role = values.role?.trim() ?? '';
  if (!username || !isRole(role)) {
    console.error(`fpa:create-user: ${username ? `--role must be one of ${ROLES.join(', ')}` : '--username is required'}\n${USAGE}`);
    return 2;
  }
  const input = {
    username,
    role: role as Role,
    name: values.name?.trim() || username,
    ...(values.email ? { email: values.email.trim() } : {}),
    areas: (values.areas ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
  };
  refuseInvalid(input);
  const { settings } = loadSettings();
  const handed = await callRunningServer<Invited>('create-user', 'users/', input, LINK_BASE_SETTINGS);
  if (handed) {
    // A value the API refuses is the operator's to fix, like an unknown option.
    if (handed.status === 400) throw new UsageError(refusal(handed));
    if (handed.status !== 201) {
      console.error(`fpa:create-user: ${refusal(handed)}`);
      return 1;
    }
    const invited = handed.json;
    // The server named the loopback address this script asked it at: another computer opens the
    // link at CONSOLE_URL, or at the address the server listens on (its lock file says which).
    const token = invited.invite_url.slice(invited.invite_url.indexOf(`${CONSOLE_PATH}/`));
    report({ ...invited, invite_url: `${runningServerBase(settings, handed)}${token}` });
    return 0;
  }
  const fpa = await createFingerprintAttendance({ startJobs: false, logger: silentLogger });
  try {
    report(await fpa.service.inviteUser(input, { consoleBase: consoleBaseOf(settings, settings.PORT) }));
    return 0;
  } finally {
    await fpa.close();
  }
}

registerCommand(
  'create-user',
  createUserCommand,
  `${USAGE}\nInvites a user and prints the one-time link where they choose a password (valid USER_INVITE_TTL).`,
);
