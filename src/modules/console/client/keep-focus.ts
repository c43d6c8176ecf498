/**
 * Focus across a redraw. The console draws a page again after an action or on a timer
 * (`keepFresh`): the control that had focus is a new element then, and the browser would leave
 * focus on <body>, so a keyboard or screen-reader user starts again from the top. `replace`
 * remembers the focused control by what a person knows it by (its kind, accessible name, link
 * target, and which of its namesakes it was) and focuses its namesake in the new content (its
 * count may have changed: "Punches today 12" is still the same tile at 13); when it
 * is gone (a "Disable" that became "Enable", a deleted row), the heading of its section, else
 * the page's heading.
 */

export interface FocusMark {
  name: string;
  nth: number;
  heading: string | null;
}

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

/** Its name with the numbers left out: a tile or link whose count changed ("3 commands failed") is still the one. */
const loosely = (name: string) => name.replace(/\d+/g, '#');

function nameOf(el: Element): string {
  const labelled = el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
  const label = labelled ? (el.labels?.[0]?.textContent ?? '') : (el.textContent ?? '');
  const type = el instanceof HTMLInputElement ? el.type : '';
  return [el.tagName, type, el.getAttribute('aria-label') ?? '', el.getAttribute('href') ?? '', el.getAttribute('name') ?? '', label.trim()].join('|');
}

function namesakes(region: Element, name: string, loose = false): HTMLElement[] {
  const key = (el: Element) => (loose ? loosely(nameOf(el)) : nameOf(el));
  return Array.from(region.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => key(el) === name);
}

/** The heading a person would say the control is under: its section's, else none. */
function headingOf(el: Element): string | null {
  const heading = el.closest('section')?.querySelector('h2, h3');
  return heading?.textContent?.trim() || null;
}

/** What had focus inside `region`, to find again after `region` is redrawn; null when focus is elsewhere. */
export function markFocus(region: Element): FocusMark | null {
  const active = document.activeElement;
  if (!active || active === region || !region.contains(active)) return null;
  const name = nameOf(active);
  return { name, nth: Math.max(0, namesakes(region, name).indexOf(active as HTMLElement)), heading: headingOf(active) };
}

/** Puts focus back after a redraw of `region`: the same control, else its section's heading, else the page's. */
export function restoreFocus(region: Element, mark: FocusMark): void {
  // Something in the redraw placed focus on purpose (a form's first error, a new page's heading).
  if (region.contains(document.activeElement) && document.activeElement !== region) return;
  const exact = namesakes(region, mark.name);
  const same = exact.length > 0 ? exact : namesakes(region, loosely(mark.name), true);
  const control = same[Math.min(mark.nth, same.length - 1)];
  if (control) {
    control.focus({ preventScroll: true });
    return;
  }
  const headings = Array.from(region.querySelectorAll<HTMLElement>('h2, h3'));
  const heading = headings.find((x) => mark.heading !== null && x.textContent?.trim() === mark.heading) ?? region.querySelector<HTMLElement>('h1');
  if (!heading) return;
  heading.setAttribute('tabindex', '-1');
  heading.focus();
}

/**
 * Focus for a control about to be hidden or removed while it has focus (an Import done): the
 * heading of its section, else the page's, as after a redraw; the browser would leave it on <body>.
 */
export function focusHeadingOf(control: Element): void {
  const heading = control.closest('section')?.querySelector<HTMLElement>('h2, h3') ?? document.querySelector<HTMLElement>('main h1, h1');
  if (!heading) return;
  heading.setAttribute('tabindex', '-1');
  heading.focus();
}
