/**
 * Overview: what needs attention first (the diagnostics of each terminal with their fix, failing
 * commands, webhook backlog, webhook endpoints disabled or holding dead letters, failed jobs),
 * then the day.
 */
import type { DiagnosticView } from '../../../diagnostics';
import type { HealthView } from '../../../health';
import type { WebhookEndpointView } from '../../../webhooks';
import { api, can, currentSession, everyRow } from '../api';
import { badge, h, keepFresh, replace, section, table } from '../dom';
import { ago, count, dateTime, words } from '../format';
import { diagnosticItem } from './diagnostics';
import { jobTitle } from './operations';

function tile(label: string, value: number | string, href: string, tone: 'ok' | 'warn' | 'bad' | 'muted'): HTMLElement {
  return h('a', { class: `tile ${tone}`, href }, h('span', { class: 'value' }, String(value)), h('span', { class: 'label' }, label));
}

export async function overviewPage(main: HTMLElement): Promise<(() => void) | undefined> {
  if (!can('GET health/')) {
    drawWelcome(main);
    return undefined;
  }
  await drawOverviewPage(main);
  // Terminals come online, register and punch on their own: the page follows.
  return keepFresh(() => drawOverviewPage(main), 15_000);
}

async function drawOverviewPage(main: HTMLElement): Promise<void> {
  const [health, diagnostics] = await Promise.all([
    api.get<HealthView>('health/'),
    can('GET diagnostics/') ? api.get<{ results: DiagnosticView[] }>('diagnostics/') : { results: [] as DiagnosticView[] },
  ]);
  const attention = await attentionItems(health, diagnostics.results);
  replace(
    main,
    h('h1', {}, 'Overview'),
    section(
      'Needs attention',
      attention.length > 0 ? h('ul', { class: 'attention' }, ...attention) : h('p', { class: 'ok-note' }, 'Nothing needs attention right now.'),
    ),
    h(
      'div',
      { class: 'tiles' },
      tile('Terminals online', health.terminals.online, '#/terminals', 'ok'),
      tile('Terminals offline', health.terminals.offline, '#/terminals', health.terminals.offline > 0 ? 'bad' : 'muted'),
      tile('Waiting for approval', health.terminals.pending, '#/terminals', health.terminals.pending > 0 ? 'warn' : 'muted'),
      tile('Punches today', health.punches_today, '#/punches', 'muted'),
      tile('Commands waiting', health.commands.pending, '#/terminals', 'muted'),
      tile('Commands failed', health.commands.failed, '#/terminals', health.commands.failed > 0 ? 'bad' : 'muted'),
      can('GET webhooks/') &&
        tile(
          'Webhook backlog',
          health.webhooks.backlog,
          '#/integrations',
          health.webhooks.status === 'warning' ? 'bad' : health.webhooks.backlog > 0 ? 'warn' : 'muted',
        ),
    ),
    section(
      'Jobs',
      table(
        ['Job', 'Last run', 'Result', 'Next run'],
        health.jobs.map((j) => [
          jobTitle(j.name),
          dateTime(j.last_finished_at),
          j.last_status ? badge(words(j.last_status), j.last_status === 'succeeded' ? 'ok' : j.last_status === 'failed' ? 'bad' : 'muted') : 'Not run yet',
          j.next_run_at ? dateTime(j.next_run_at) : 'Run by hand or by the scheduler',
        ]),
        'No jobs.',
      ),
      can('POST jobs/{name}/run/') && h('p', {}, h('a', { href: '#/operations' }, 'Run a job now')),
    ),
    h('p', { class: 'muted' }, `As of ${dateTime(health.at)}.`),
  );
}

/** What needs attention, first things first: the terminals' diagnostics, failed commands, webhooks, failed jobs. */
async function attentionItems(health: HealthView, diagnostics: readonly DiagnosticView[]): Promise<HTMLElement[]> {
  const attention: HTMLElement[] = diagnostics.map(diagnosticItem);
  if (health.commands.failed > 0)
    attention.push(h('li', {}, h('a', { href: '#/terminals' }, `${count(health.commands.failed, 'command', 'commands')} failed`)));
  // The messages held for a disabled endpoint are said on its own line, with why: counted once.
  const waiting = health.webhooks.backlog - health.webhooks.held;
  if (waiting > 0 && can('GET webhooks/'))
    attention.push(
      h(
        'li',
        {},
        h(
          'a',
          { href: '#/integrations' },
          `${count(waiting, 'webhook message', 'webhook messages')} not delivered yet (oldest ${ago(health.webhooks.oldest_pending_at)})`,
        ),
      ),
    );
  if (health.webhooks.attention.length > 0 && can('GET webhooks/')) attention.push(...(await webhookAttention(health.webhooks.attention)));
  const failedJobs = health.jobs.filter((j) => j.last_status === 'failed');
  for (const job of failedJobs) attention.push(h('li', {}, h('a', { href: '#/operations' }, `The job “${jobTitle(job.name)}” failed on its last run`)));
  return attention;
}

/**
 * A webhook endpoint disabled (payroll gets nothing; its messages are held), failing for ten
 * minutes (its messages wait) or holding dead letters (messages the receiver refused, not sent
 * again): each said with its receiver, linking to that endpoint on Integrations.
 */
async function webhookAttention(endpoints: HealthView['webhooks']['attention']): Promise<HTMLElement[]> {
  const urls = new Map((await everyRow<WebhookEndpointView>('webhooks/')).map((w) => [w.id, w] as const));
  return endpoints.flatMap((e) => {
    const hook = urls.get(e.endpoint);
    if (!hook) return [];
    const href = `#/integrations/${encodeURIComponent(e.endpoint)}`;
    const items: HTMLElement[] = [];
    if (e.disabled) {
      const why = hook.disabled_reason ? ` (${hook.disabled_reason})` : '';
      const held = e.held > 0 ? `: ${count(e.held, 'message is', 'messages are')} held until it is enabled` : '';
      items.push(h('li', {}, h('a', { href }, `The webhook to ${hook.url} is disabled${why}${held}`)));
    }
    if (e.failing_since) {
      items.push(
        h(
          'li',
          {},
          h('a', { href }, `Every delivery to ${hook.url} has failed since ${dateTime(e.failing_since)}: its messages wait, retried less and less often`),
        ),
      );
    }
    if (e.dead_letters > 0) {
      items.push(
        h(
          'li',
          {},
          h('a', { href }, `${count(e.dead_letters, 'webhook message', 'webhook messages')} to ${hook.url} refused and dead-lettered: send again with Recover`),
        ),
      );
    }
    return items;
  });
}

/** For a role that does not see the fleet's health (a manager): where its work is. */
function drawWelcome(main: HTMLElement): void {
  const session = currentSession();
  const links: [string, string, string][] = [
    ['#/people', 'People', 'GET enrollees/'],
    ['#/punches', 'Punches', 'GET punches/'],
    ['#/attendance', 'Attendance', 'GET attendance-days/'],
  ];
  const where = session.areas.length > 0 ? session.areas.join(', ') : 'all areas';
  replace(
    main,
    h('h1', {}, 'Overview'),
    h('p', {}, `You see the people, punches and attendance of ${where}.`),
    h('ul', { class: 'attention' }, ...links.filter(([, , action]) => can(action)).map(([href, label]) => h('li', {}, h('a', { href }, label)))),
  );
}
