/**
 * A few DOM helpers instead of a framework: `h` builds elements (text children are text nodes,
 * never HTML, so nothing the server sends is ever parsed as markup), and the small widgets every
 * page uses: a status message, a confirmation dialog, tables, forms.
 */

import { markFocus, restoreFocus } from './keep-focus';

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `el` holds; focus inside it stays on the same control (keep-focus.ts). */
export function replace(el: Element, ...children: (Child | Child[])[]): void {
  const mark = markFocus(el);
  el.replaceChildren();
  append(el, children);
  if (mark) restoreFocus(el, mark);
}

let uid = 0;
const nextId = (prefix: string) => `${prefix}-${++uid}`;

/** A labelled field: the label is tied to its control, for screen readers and bigger click targets. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  if (!control.id) control.id = nextId('f');
  const hintEl = hint ? h('small', { id: `${control.id}-hint`, class: 'hint' }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl);
}

export function input(attrs: Attrs = {}): HTMLInputElement {
  return h('input', { type: 'text', ...attrs });
}

export function select(options: [string, string][], attrs: Attrs = {}, selected?: string): HTMLSelectElement {
  return h('select', attrs, ...options.map(([value, label]) => h('option', { value, selected: value === selected }, label)));
}

export function button(label: string, onClick: (event: Event) => void | Promise<void>, attrs: Attrs = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', ...attrs }, label);
  // Busy, not `disabled`: a disabled button loses focus, and a dialog it opened could not give
  // focus back to it. A click while it is at work does nothing.
  let busy = false;
  b.addEventListener('click', async (event) => {
    if (busy) return;
    busy = true;
    b.setAttribute('aria-disabled', 'true');
    try {
      await onClick(event);
    } finally {
      busy = false;
      b.removeAttribute('aria-disabled');
    }
  });
  return b;
}

/**
 * A table with a header row; `empty` is shown when there are no rows. A column of buttons (its
 * header `''`) is headed "Actions" for screen readers, not on screen: an empty header left each
 * button's cell without a column name.
 */
export function table(headers: string[], rows: Child[][], empty = 'Nothing here yet.', caption?: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return tableWrap(
    h(
      'table',
      {},
      caption ? h('caption', {}, caption) : null,
      h('thead', {}, h('tr', {}, ...headers.map((x) => h('th', { scope: 'col' }, x === '' ? h('span', { class: 'visually-hidden' }, 'Actions') : x)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c) => h('td', {}, c))))),
    ),
  );
}

/**
 * A table's box, which scrolls sideways when the table is wider than the page (a phone, a long
 * period). While it does, it is a tab stop (arrow keys scroll it) and a region named after its
 * table (`label`, else its caption, else its section's heading), so a keyboard user reaches the
 * columns out of view; one that fits adds no tab stop. Checked whenever its size changes.
 */
export function tableWrap(table: HTMLElement, options: { label?: string; class?: string } = {}): HTMLElement {
  const wrap = h('div', { class: options.class ? `table-wrap ${options.class}` : 'table-wrap', 'data-label': options.label }, table);
  return scrollsSideways(wrap);
}

/**
 * Any box that may scroll sideways on a narrow screen (an example file's long lines), made a
 * tab stop and a region while it does, as a table's box is. A box with its own `aria-label`
 * keeps it.
 */
export function scrollsSideways<E extends HTMLElement>(box: E): E {
  scrollables()?.observe(box);
  return box;
}

let observer: ResizeObserver | null = null;
function scrollables(): ResizeObserver | null {
  if (typeof ResizeObserver === 'undefined') return null;
  observer ??= new ResizeObserver((entries) => {
    for (const entry of entries) if (entry.target instanceof HTMLElement) markScrolling(entry.target);
  });
  return observer;
}

function markScrolling(wrap: HTMLElement): void {
  const scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
  if (!scrolls) {
    wrap.removeAttribute('tabindex');
    wrap.removeAttribute('role');
    if (wrap.dataset.named === 'scrolling') wrap.removeAttribute('aria-label');
    return;
  }
  if (wrap.hasAttribute('tabindex')) return;
  wrap.setAttribute('tabindex', '0');
  wrap.setAttribute('role', 'region');
  if (wrap.hasAttribute('aria-label')) return;
  const named = (el: Element | null | undefined) => el?.textContent?.trim() || undefined;
  const label = wrap.dataset.label || named(wrap.querySelector('caption')) || named(wrap.closest('section')?.querySelector('h2, h3')) || 'Table';
  wrap.setAttribute('aria-label', label);
  wrap.dataset.named = 'scrolling';
}

/**
 * A page's heading with its status beside it, not in it: the heading, and the tab's title made
 * of it, are the name alone ("Émile Zola", not "Émile Zola Active"); the badge is read after it.
 */
export function headingWithStatus(title: string, status: HTMLElement): HTMLElement {
  return h('div', { class: 'page-title' }, h('h1', {}, title), status);
}

export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'muted' | 'info' = 'muted'): HTMLElement {
  return h('span', { class: `badge ${tone}` }, text);
}

/**
 * A message in the page's live region, read out by screen readers. It sits in the window's
 * corner, over whatever is there: a close button (or Escape) puts it away, and a confirmation
 * goes by itself after 6 s.
 */
export function announce(text: string, tone: 'ok' | 'bad' = 'ok'): void {
  const region = document.getElementById('status');
  if (!region) return;
  region.className = `status ${tone}`;
  const message = h('span', {}, text);
  region.replaceChildren(
    message,
    h('button', { type: 'button', class: 'status-close', 'aria-label': 'Close the message', onclick: () => region.replaceChildren() }, '×'),
  );
  if (tone === 'ok') {
    setTimeout(() => {
      if (message.isConnected) region.replaceChildren();
    }, 6000);
  }
}

/** Escape puts the corner's message away (a dialog open takes Escape for itself). */
export function closeMessageOnEscape(): void {
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || document.querySelector('dialog[open]')) return;
    document.getElementById('status')?.replaceChildren();
  });
}

/**
 * A modal <dialog> asking `question` (focus moves into it, Escape cancels): `answer` reads the
 * form when it is submitted, undefined while it may not be (an empty reason, a serial mistyped).
 */
function ask<T>(
  question: string,
  options: {
    action: string;
    detail?: string;
    field?: HTMLElement;
    /** Focused first; Cancel when not given. */
    focus?: HTMLElement;
    /** Keep the action disabled while `answer` says no (a serial to type). */
    gate?: boolean;
    cancelled: T;
    answer(): T | undefined;
  },
): Promise<T> {
  return new Promise((resolve) => {
    const detailId = nextId('d');
    const ok = h('button', { type: 'submit', class: 'danger' }, options.action);
    const cancel = h('button', { type: 'button' }, 'Cancel');
    const form = h(
      'form',
      { method: 'dialog', class: 'stack' },
      h('h2', {}, question),
      options.detail ? h('p', { id: detailId }, options.detail) : null,
      options.field ?? null,
      h('div', { class: 'actions' }, cancel, ok),
    );
    const dialog = h('dialog', { class: 'confirm', 'aria-label': question, 'aria-describedby': options.detail ? detailId : null }, form);
    // Focus goes back where it was (the button that asked) when the dialog closes, answered or not.
    const opener = document.activeElement;
    let answered = false;
    const finish = (value: T) => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(value);
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = options.answer();
      if (value !== undefined) finish(value);
    });
    cancel.addEventListener('click', () => finish(options.cancelled));
    dialog.addEventListener('close', () => finish(options.cancelled));
    document.body.append(dialog);
    dialog.showModal();
    if (options.gate) {
      ok.disabled = options.answer() === undefined;
      form.addEventListener('input', () => {
        ok.disabled = options.answer() === undefined;
      });
    }
    (options.focus ?? cancel).focus();
  });
}

let keepNext = false;

/** Goes to another page after an action, keeping the message the action just said ("deleted", then the list). */
export function navigate(hash: string): void {
  keepNext = true;
  location.hash = hash;
}

/** Clears the page's message when the person moves to another page (unless `navigate` brought them). */
export function forgetAnnouncement(): void {
  const keep = keepNext;
  keepNext = false;
  const region = document.getElementById('status');
  if (region && !keep) {
    region.textContent = '';
    region.className = 'status';
  }
}

/**
 * Asks before anything destructive. With `typed`, the person must type that text (a terminal's
 * serial) before the action is allowed.
 */
export function confirmAction(question: string, options: { action: string; typed?: string; detail?: string } = { action: 'Confirm' }): Promise<boolean> {
  const typedInput = options.typed ? input({ autocomplete: 'off', spellcheck: 'false' }) : null;
  return ask(question, {
    ...options,
    field: typedInput ? field(`Type ${options.typed} to confirm`, typedInput) : undefined,
    focus: typedInput ?? undefined,
    gate: typedInput !== null,
    cancelled: false,
    answer: () => (!typedInput || typedInput.value.trim() === options.typed ? true : undefined),
  });
}

/** Asks which of `choices` ([value, label], the first chosen at first); its value, or null when cancelled. */
export function askChoice(question: string, options: { action: string; label: string; choices: [string, string][]; detail?: string }): Promise<string | null> {
  const chosen = select(options.choices);
  return ask<string | null>(question, {
    ...options,
    field: field(options.label, chosen),
    focus: chosen,
    cancelled: null,
    answer: () => chosen.value,
  });
}

/** Asks for a reason before a correction (it goes into the audit log); null when cancelled. */
export function askReason(question: string, options: { action: string; detail?: string }): Promise<string | null> {
  const reason = input({ required: true, autocomplete: 'off' });
  return ask<string | null>(question, {
    ...options,
    field: field('Reason', reason, 'Recorded in the audit log.'),
    focus: reason,
    cancelled: null,
    answer: () => reason.value.trim() || undefined,
  });
}

/**
 * Asks for the person's current password before a change the server wants it for (a second
 * factor removed, new recovery codes); null when cancelled.
 */
export function askPassword(question: string, options: { action: string; detail?: string }): Promise<string | null> {
  const password = input({ type: 'password', required: true, autocomplete: 'current-password' });
  return ask<string | null>(question, {
    ...options,
    field: field('Your password', password, 'Asked again to make sure it is you.'),
    focus: password,
    cancelled: null,
    answer: () => password.value || undefined,
  });
}

/** Shows a secret that is given out once (a key), with a note that it will not be shown again. */
export function showOnce(title: string, secret: string, note: string): HTMLElement {
  return h('div', { class: 'once', role: 'alert' }, h('h3', {}, title), h('p', {}, note), h('code', { class: 'secret', tabindex: 0 }, secret));
}

export function section(title: string, ...children: (Child | Child[])[]): HTMLElement {
  const id = nextId('s');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

export function definitionList(items: [string, Child][]): HTMLElement {
  return h('dl', { class: 'facts' }, ...items.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}

/**
 * Draws a page again every `ms` while it is the page shown and nobody is typing in it (a redraw
 * would take their focus away); returns the cleanup the router calls when the page is left.
 */
export function keepFresh(draw: () => Promise<unknown>, ms: number): () => void {
  const here = location.hash;
  let timer: ReturnType<typeof setTimeout>;
  const tick = () => {
    timer = setTimeout(async () => {
      const typing =
        document.activeElement instanceof HTMLInputElement || document.activeElement instanceof HTMLSelectElement || document.querySelector('dialog[open]');
      if (location.hash !== here) return;
      if (!typing) await draw().catch(() => undefined);
      tick();
    }, ms);
  };
  tick();
  return () => clearTimeout(timer);
}
