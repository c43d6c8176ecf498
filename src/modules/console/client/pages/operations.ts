/** Operations: the periodic jobs (run one now), the audit log (who did what) and the event log. */
import { api, type List, query } from '../api';
import { announce, badge, button, field, h, input, replace, section, table } from '../dom';
import { dateTime, words } from '../format';
import type { AuditEntry, Job, LogEvent } from '../types';

/** What kind of actor did it, as the audit log names it. */
const ACTOR_KINDS: Record<string, string> = {
  user: 'user',
  api_key: 'API key',
  token: 'token',
  host: 'host sign-in',
  operator: 'operator',
  terminal: 'terminal',
  job: 'job',
  agent: 'enrollment agent',
};

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function summarize(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${words(k)}: ${typeof v === 'string' && ISO_INSTANT.test(v) ? dateTime(v) : String(v)}`)
    .join(', ');
}

/** The log is read oldest first: page through it (bounded) and keep the newest. */
async function newestEvents(count: number): Promise<LogEvent[]> {
  let after = 0;
  let kept: LogEvent[] = [];
  for (let page = 0; page < 20; page++) {
    const batch = await api.get<{ results: LogEvent[]; last_sequence: number }>(`events/?after=${after}&limit=1000`);
    kept = [...kept, ...batch.results].slice(-count);
    if (batch.results.length < 1000) break;
    after = batch.last_sequence;
  }
  return kept.reverse();
}

export async function operationsPage(main: HTMLElement): Promise<undefined> {
  const redraw = () => operationsPage(main).then(() => undefined);
  const [jobs, recentEvents] = await Promise.all([api.get<List<Job>>('jobs/'), newestEvents(50)]);
  const actor = input({ autocomplete: 'off', placeholder: 'anyone' });
  const action = input({ autocomplete: 'off', placeholder: 'any action' });
  const auditRows = h('div');
  const loadAudit = async () => {
    const list = await api.get<List<AuditEntry>>(`audit-log/${query({ actor: actor.value.trim(), action: action.value.trim(), limit: 100 })}`);
    replace(
      auditRows,
      table(
        ['When', 'Who', 'Did', 'To', 'Details'],
        list.results.map((e) => [
          dateTime(e.at),
          e.actor_kind ? `${e.actor} (${ACTOR_KINDS[e.actor_kind] ?? words(e.actor_kind)})` : e.actor,
          words(e.action),
          `${words(e.target_type)} ${e.target_id ?? ''}`,
          summarize(e.details),
        ]),
        'Nothing recorded.',
        'Audit log',
      ),
    );
  };
  const auditForm = h(
    'form',
    { class: 'inline-form', role: 'search' },
    field('Who', actor),
    field('Action', action, 'e.g. device_approved'),
    h('button', { type: 'submit' }, 'Filter'),
  );
  auditForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void loadAudit();
  });
  replace(
    main,
    h('h1', {}, 'Operations'),
    section(
      'Jobs',
      table(
        ['Job', 'What it does', 'Last run', 'Result', 'Next run', ''],
        jobs.results.map((j) => [
          j.name,
          j.description,
          dateTime(j.last_finished_at),
          j.running ? badge('Running', 'info') : j.last_status ? badge(words(j.last_status), j.last_status === 'succeeded' ? 'ok' : 'bad') : 'Not run yet',
          dateTime(j.next_run_at),
          button(
            'Run now',
            async () => {
              const outcome = await api.post<{ status: string; summary: string }>(`jobs/${encodeURIComponent(j.name)}/run/`);
              await redraw();
              announce(outcome.summary, outcome.status === 'failed' ? 'bad' : 'ok');
            },
            { 'aria-label': `Run ${j.name} now` },
          ),
        ]),
      ),
    ),
    section('Audit log', auditForm, auditRows),
    section(
      'Recent events',
      table(
        ['When', 'Event', 'Details'],
        recentEvents.map((e) => [dateTime(e.at), words(e.type), summarize(e.data)]),
        'No events yet.',
      ),
    ),
  );
  await loadAudit();
  return undefined;
}
