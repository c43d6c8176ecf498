/** Integrations: webhook endpoints (deliveries, test send, recover, enable) and desktop enrollment agents (key shown once, revoke). */

import type { AgentView } from '../../../enrollment';
import type { HealthView } from '../../../health';
import type { WebhookEndpointView } from '../../../webhooks';
import { api, can, currentSession, everyRow, type List, whollyMine } from '../api';
import { announce, askChoice, badge, button, confirmAction, field, h, input, replace, section, showOnce, table } from '../dom';
import { eventWords } from '../event-words';
import { onSubmit } from '../form-errors';
import { count, dateTime } from '../format';
import { areaNames, areaPicker, areasText } from './access';

interface Delivery {
  id: number;
  message_id: string;
  attempt: number;
  /** Messages the row accounts for: 1, or a run of in-order deliveries. */
  count: number;
  status_code: number | null;
  error: string | null;
  next_retry_at: string | null;
  created_at: string;
  event_type: string | null;
  test: boolean;
}

/** One box per event type; a new endpoint gets punches unless told otherwise. */
function eventPicker(types: readonly string[]) {
  const boxes = types.map((type) => {
    const box = h('input', { type: 'checkbox', value: type, id: `event-${type}`, checked: type === 'punch_received' });
    return { box, element: h('div', { class: 'check', title: type }, box, h('label', { for: box.id }, eventWords(type))) };
  });
  return {
    element: h('fieldset', { class: 'event-types' }, h('legend', {}, 'Events to send'), ...boxes.map((b) => b.element)),
    chosen: () => boxes.filter((b) => b.box.checked).map((b) => b.box.value),
  };
}

/** `#/integrations/<endpoint id>` (the Overview's link to an endpoint that needs attention) opens that endpoint's deliveries. */
export async function integrationsPage(main: HTMLElement, params: string[] = []): Promise<undefined> {
  const redraw = () => integrationsPage(main, params).then(() => undefined);
  // Each half for the roles that may use it: webhooks for owners and admins, agents for hr too.
  const seesHooks = can('GET webhooks/');
  const seesAgents = can('GET enrollment-agents/');
  const [hooks, agents, types, areas, health] = await Promise.all([
    seesHooks ? everyRow<WebhookEndpointView>('webhooks/') : [],
    seesAgents ? everyRow<AgentView>('enrollment-agents/') : [],
    seesHooks ? api.get<{ results: string[] }>('webhooks/event-types/') : { results: [] },
    seesAgents && can('POST enrollment-agents/') ? areaNames() : [],
    seesHooks && can('GET health/') ? api.get<HealthView>('health/') : null,
  ]);
  const attention = new Map((health?.webhooks.attention ?? []).map((a) => [a.endpoint, a] as const));
  const hookForm = webhookForm(main, types.results, redraw);
  const deliveries = h('div', { id: 'deliveries' });
  const agentForm = newAgentForm(main, areas, redraw);
  replace(
    main,
    h('h1', {}, 'Integrations'),
    seesHooks &&
      section(
        'Webhook endpoints',
        h('p', { class: 'muted' }, 'Payroll and HR systems receive each punch (and other events) signed, as it happens.'),
        webhookTable(hooks, attention, deliveries, redraw),
        hookForm.form,
        hookForm.slot,
        deliveries,
      ),
    seesAgents && section('Desktop enrollment agents', agentTable(agents, redraw), can('POST enrollment-agents/') && agentForm.form, agentForm.slot),
  );
  const chosen = hooks.find((w) => w.id === params[0]);
  if (chosen) {
    await showDeliveries(chosen, deliveries);
    deliveries.scrollIntoView({ block: 'start' });
  }
  return undefined;
}

/** A new endpoint: its address and events; its signing secret is shown once in `slot`. */
function webhookForm(main: HTMLElement, types: readonly string[], redraw: () => Promise<void>): { form: HTMLElement; slot: HTMLElement } {
  const secretSlot = h('div');
  const url = input({ type: 'url', required: true, placeholder: 'https://payroll.example.com/hook' });
  const events = eventPicker(types);
  const hookForm = h(
    'form',
    { class: 'inline-form' },
    field('Receiver URL', url),
    events.element,
    h('button', { type: 'submit', class: 'primary' }, 'Add endpoint'),
  );
  onSubmit(hookForm, { url, events: events.element }, async () => {
    const chosen = events.chosen();
    if (chosen.length === 0) throw new Error('Choose at least one event to send.');
    const created = await api.post<WebhookEndpointView & { secret: string }>('webhooks/', { url: url.value.trim(), events: chosen });
    await redraw();
    const slot = main.querySelector('#webhook-secret');
    if (slot) replace(slot, showOnce('Signing secret', created.secret, 'Give it to the receiver now to verify signatures: it is shown this once.'));
  });
  secretSlot.id = 'webhook-secret';
  return { form: hookForm, slot: secretSlot };
}

/**
 * A new desktop agent: its name, reader and the areas whose people it enrolls; its key is shown
 * once in `slot`. A caller limited to areas sees only its own, all ticked (it may not leave an
 * agent with every area).
 */
function newAgentForm(main: HTMLElement, areas: readonly string[], redraw: () => Promise<void>): { form: HTMLElement; slot: HTMLElement } {
  const agentSlot = h('div', { id: 'agent-key' });
  const agentName = input({ required: true, autocomplete: 'off', placeholder: 'Front desk PC' });
  const algorithm = input({ required: true, autocomplete: 'off', value: '10' });
  const limited = currentSession().areas.length > 0;
  const picker = areaPicker(areas, limited ? areas : [], 'Enrolls the people of', limited ? 'your areas' : 'every area');
  const agentForm = h(
    'form',
    { class: 'inline-form', 'aria-label': 'Create a desktop agent' },
    field('Name', agentName),
    field('Reader algorithm', algorithm, 'The fingerprint algorithm version of its USB reader.'),
    picker.element,
    h('button', { type: 'submit', class: 'primary' }, 'Create agent'),
  );
  onSubmit(agentForm, { name: agentName, algorithm_version: algorithm }, async () => {
    const created = await api.post<AgentView & { key: string }>('enrollment-agents/', {
      name: agentName.value.trim(),
      algorithm_version: algorithm.value.trim(),
      areas: picker.chosen(),
    });
    await redraw();
    const slot = main.querySelector('#agent-key');
    if (slot) replace(slot, showOnce('Agent key', created.key, 'Enter it in the desktop agent now: it is shown this once.'));
  });
  return { form: agentForm, slot: agentSlot };
}

type Attention = HealthView['webhooks']['attention'][number];

function webhookTable(
  hooks: WebhookEndpointView[],
  attention: ReadonlyMap<string, Attention>,
  deliveries: HTMLElement,
  redraw: () => Promise<void>,
): HTMLElement {
  return table(
    ['Receiver', 'Events', 'State', ''],
    hooks.map((w) => [
      w.url,
      w.events.map(eventWords).join(', '),
      h('span', {}, ...webhookState(w, attention.get(w.id))),
      webhookActions(w, deliveries, redraw),
    ]),
    'No endpoints.',
  );
}

/** Its state, then what it holds that payroll is missing: messages held while disabled, dead letters. */
function webhookState(w: WebhookEndpointView, attention: Attention | undefined): HTMLElement[] {
  const state = w.active
    ? w.failing_since
      ? badge(`Failing since ${dateTime(w.failing_since)}`, 'bad')
      : badge('Active', 'ok')
    : badge(`Disabled${w.disabled_reason ? `: ${w.disabled_reason}` : ''}`, 'bad');
  const held = attention && attention.held > 0 ? [' ', badge(`${count(attention.held, 'message', 'messages')} held`, 'warn')] : [];
  const dead = attention && attention.dead_letters > 0 ? [' ', badge(`${count(attention.dead_letters, 'dead letter', 'dead letters')}`, 'bad')] : [];
  return [state, ...held, ...dead].map((x) => (typeof x === 'string' ? h('span', {}, x) : x));
}

/** The endpoint's last delivery attempts, in `deliveries`. */
async function showDeliveries(w: WebhookEndpointView, deliveries: HTMLElement): Promise<void> {
  const list = await api.get<List<Delivery>>(`webhooks/${encodeURIComponent(w.id)}/deliveries/?limit=50`);
  replace(
    deliveries,
    h('h3', {}, `Deliveries to ${w.url}`),
    table(
      ['When', 'What', 'Messages', 'Try', 'Answer', 'Next try'],
      list.results.map((d) => [
        dateTime(d.created_at),
        d.test ? h('span', {}, badge('Test', 'info'), ' Test send') : d.event_type ? eventWords(d.event_type) : 'An event no longer kept',
        d.count,
        d.attempt,
        d.status_code ? `HTTP ${d.status_code}` : (d.error ?? '—'),
        dateTime(d.next_retry_at),
      ]),
      'No delivery attempts yet.',
    ),
  );
}

/** A caller limited to areas revokes only agents wholly within them, not one of every area (the server refuses those). */
function mayRevoke(agent: AgentView): boolean {
  return whollyMine(agent.areas);
}

function agentTable(agents: AgentView[], redraw: () => Promise<void>): HTMLElement {
  return table(
    ['Name', 'Algorithm', 'Enrolls the people of', 'Key starts', 'State', 'Last used', ''],
    agents.map((a) => [
      a.name,
      a.algorithm_version,
      areasText(a.areas),
      a.key_prefix,
      a.status === 'active' ? badge('Active', 'ok') : badge('Revoked', 'muted'),
      dateTime(a.last_used_at),
      a.status === 'active' && can('POST enrollment-agents/{id}/revoke/') && mayRevoke(a)
        ? button(
            'Revoke',
            async () => {
              if (
                !(await confirmAction(`Revoke agent ${a.name}?`, {
                  action: 'Revoke',
                  detail: 'Its key stops working and its open sessions are cancelled.',
                }))
              )
                return;
              await api.post(`enrollment-agents/${encodeURIComponent(a.id)}/revoke/`);
              await redraw();
              announce(`Agent ${a.name} revoked.`);
            },
            { 'aria-label': `Revoke agent ${a.name}` },
          )
        : '',
    ]),
    'No agents.',
  );
}

function webhookActions(w: WebhookEndpointView, deliveries: HTMLElement, redraw: () => Promise<void>): HTMLElement {
  const base = `webhooks/${encodeURIComponent(w.id)}/`;
  return h(
    'div',
    { class: 'actions' },
    button('Deliveries', () => showDeliveries(w, deliveries)),
    button('Send a test', async () => {
      const r = await api.post<{ status_code: number | null; error: string | null }>(`${base}test/`);
      announce(
        r.status_code ? `The receiver answered HTTP ${r.status_code}.` : `The test failed: ${r.error ?? 'no answer'}.`,
        r.status_code && r.status_code < 300 ? 'ok' : 'bad',
      );
    }),
    button('Recover', async () => {
      const since = await askChoice('Send again everything not delivered since when?', {
        action: 'Recover',
        label: 'Since',
        choices: recoverWindows(w, Date.now()),
        detail: 'Failed, dead-lettered and held messages are sent again; delivered ones are not.',
      });
      if (since === null) return;
      const r = await api.post<{ requeued: number }>(`${base}recover/`, { since });
      announce(`${count(r.requeued, 'message', 'messages')} queued again.`);
    }),
    w.active
      ? button(
          'Remove',
          async () => {
            if (!(await confirmAction(`Remove the endpoint ${w.url}?`, { action: 'Remove' }))) return;
            await api.delete(base);
            await redraw();
            announce('Endpoint removed.');
          },
          { 'aria-label': `Remove the endpoint ${w.url}` },
        )
      : button('Enable', async () => {
          await api.post(`${base}enable/`);
          announce('Endpoint enabled; held messages are being delivered.');
          await redraw();
        }),
  );
}

/**
 * The windows Recover offers, as [instant, words]: while the endpoint is failing, its whole
 * outage (from an hour before it began: events of that hour may have been sent only once it
 * failed), which may be longer than a day; then the last day, week and month.
 */
function recoverWindows(w: WebhookEndpointView, now: number): [string, string][] {
  const before = (ms: number, from = now) => new Date(from - ms).toISOString();
  const windows: [string, string][] = [
    [before(DAY_MS), 'The last 24 hours'],
    [before(7 * DAY_MS), 'The last 7 days'],
    [before(30 * DAY_MS), 'The last 30 days'],
  ];
  if (!w.failing_since) return windows;
  return [[before(HOUR_MS, Date.parse(w.failing_since)), `Since it began failing (${dateTime(w.failing_since)}), and the hour before`], ...windows];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
