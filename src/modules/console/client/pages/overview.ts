/** Overview: what needs attention first (terminals waiting or offline, failing commands, webhook backlog), then the day. */
import { api } from '../api';
import { badge, h, keepFresh, replace, section, table } from '../dom';
import { ago, count, dateTime, words } from '../format';
import type { Health } from '../types';
import { jobTitle } from './operations';

function tile(label: string, value: number | string, href: string, tone: 'ok' | 'warn' | 'bad' | 'muted'): HTMLElement {
  return h('a', { class: `tile ${tone}`, href }, h('span', { class: 'value' }, String(value)), h('span', { class: 'label' }, label));
}

export async function overviewPage(main: HTMLElement): Promise<() => void> {
  await drawOverviewPage(main);
  // Terminals come online, register and punch on their own: the page follows.
  return keepFresh(() => drawOverviewPage(main), 15_000);
}

async function drawOverviewPage(main: HTMLElement): Promise<void> {
  const health = await api.get<Health>('health/');
  const attention: HTMLElement[] = [];
  if (health.terminals.pending > 0)
    attention.push(h('li', {}, h('a', { href: '#/terminals' }, `${count(health.terminals.pending, 'terminal', 'terminals')} waiting for approval`)));
  if (health.terminals.offline > 0)
    attention.push(h('li', {}, h('a', { href: '#/terminals' }, `${count(health.terminals.offline, 'terminal', 'terminals')} offline`)));
  if (health.commands.failed > 0)
    attention.push(h('li', {}, h('a', { href: '#/terminals' }, `${count(health.commands.failed, 'command', 'commands')} failed`)));
  if (health.webhooks.backlog > 0)
    attention.push(
      h(
        'li',
        {},
        h(
          'a',
          { href: '#/integrations' },
          `${count(health.webhooks.backlog, 'webhook message', 'webhook messages')} not delivered yet (oldest ${ago(health.webhooks.oldest_pending_at)})`,
        ),
      ),
    );
  const failedJobs = health.jobs.filter((j) => j.last_status === 'failed');
  for (const job of failedJobs) attention.push(h('li', {}, h('a', { href: '#/operations' }, `The job “${jobTitle(job.name)}” failed on its last run`)));

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
      tile('Webhook backlog', health.webhooks.backlog, '#/integrations', health.webhooks.backlog > 0 ? 'warn' : 'muted'),
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
      h('p', {}, h('a', { href: '#/operations' }, 'Run a job now')),
    ),
    h('p', { class: 'muted' }, `As of ${dateTime(health.at)}.`),
  );
}
