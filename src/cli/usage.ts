/**
 * What `npm run fpa:<name> -- --help` prints for the commands of run.ts: the usage line, then
 * what the command does. Feature commands pass their own to registerCommand(). The job lines
 * say the same as the README's script table.
 */

/** The help of a job script: it takes no options unless its usage says so. */
function job(name: string, does: string, options = ''): string {
  return [
    `usage: npm run fpa:${name}${options ? ` -- ${options}` : ''}`,
    does,
    'While a server holds the local database the job runs there (the lock file), with the server’s settings (a warning names the FPA_* variables given here that it does not share); otherwise here. Prints one summary line; exits 1 if the job fails, 2 for a command line it cannot run with.',
  ].join('\n');
}

export const COMMAND_HELP: Record<string, string> = {
  check: [
    'usage: npm run fpa:check [-- --print | --codes]',
    'The configuration check, as start-up runs it: every problem at once; exits 1 on any error. It creates no database (a missing one is a warning).',
    '--print shows the settings (secrets hidden); --codes lists every code the check can report.',
  ].join('\n'),
  migrate:
    'usage: npm run fpa:migrate\nApplies the database migrations (start-up does it too) and says which it applied, or that the database was already up to date.',
  readme: 'usage: npx bun src/cli.ts readme\nRewrites the generated blocks of README.md (settings, check codes, routes, error statuses, events).',
  'generate-key': 'usage: npm run fpa:generate-key\nPrints a new template encryption key (for FPA_TEMPLATE_ENCRYPTION_KEYS).',
  init: 'usage: npm run fpa:init [-- --if-missing]\nWrites .env with a new template key and admin JWT secret; never overwrites one.',
  'admin-token':
    'usage: npm run fpa:admin-token [-- --sub <name>] [--ttl 12h]\nPrints an HS256 administrator JWT signed with FPA_ADMIN_JWT_SECRET (subject: operator by default).',
  'check-devices': job('check-devices', 'Marks silent terminals offline (scheduled every minute).'),
  'expire-pending-devices': job(
    'expire-pending-devices',
    'Forgets terminals that registered themselves and were not approved within ADMS_PENDING_EXPIRY (hourly).',
  ),
  'sync-device-clocks': job('sync-device-clocks', 'Queues CHECK to terminals whose zone changed its UTC offset (DST) since their last handshake (hourly).'),
  'expire-commands': job('expire-commands', 'Expires device commands past their expiry (every few minutes).'),
  'retry-commands': job('retry-commands', 'Resends or fails unanswered commands (every few minutes).'),
  'expire-sessions': job('expire-sessions', 'Expires enrollment sessions past their lifetime (every minute).'),
  'generate-absences': job(
    'generate-absences',
    'Writes the planned day (absent, non-working, holiday, on leave) for people without one: yesterday in each person’s zone (their area’s, else ATTENDANCE_TIME_ZONE; daily), one --date, or a range --from … [--to …] (to: yesterday), never both.',
    '[--date YYYY-MM-DD | --from YYYY-MM-DD [--to YYYY-MM-DD]]',
  ),
  'purge-retention': job(
    'purge-retention',
    'The retention purge (daily), the databases fpa:restore replaced included once RESTORE_KEEP_REPLACED has passed since the restore.',
  ),
  'rotate-keys': job('rotate-keys', 'Re-encrypts every template and sealed secret under the first key of TEMPLATE_ENCRYPTION_KEYS (resumable).'),
  'rotate-proof-key': job(
    'rotate-proof-key',
    'Makes a new key for signing deletion proofs (the old private key is destroyed; its public key stays published, with when it was retired).',
  ),
  'deliver-webhooks': job('deliver-webhooks', 'Delivers what is due once: each endpoint up to the log’s head, and the messages queued by hand.'),
  'reconcile-devices': job('reconcile-devices', 'Sends again to each terminal the templates that failed (full) or were incompatible there (hourly).'),
  'follow-area-moves': job(
    'follow-area-moves',
    'Takes people moved to other areas off the terminals of the areas they left, once the move takes effect (every few minutes).',
  ),
  'check-completeness': job(
    'check-completeness',
    "Compares each terminal's reported record count with the punches stored from it, queues re-uploads of gaps (every minute).",
  ),
};
