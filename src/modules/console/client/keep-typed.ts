/**
 * What is typed in a page's forms, kept across a redraw of the page (pages/plan.ts: every change
 * there redraws every section).
 */
/** A form's controls: what is typed or chosen in it. */
type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
const controlsOf = (form: HTMLFormElement): Control[] => Array.from(form.querySelectorAll<Control>('input, select, textarea')).filter((c) => c.type !== 'file');
const stateOf = (c: Control): string | boolean => (c instanceof HTMLInputElement && (c.type === 'checkbox' || c.type === 'radio') ? c.checked : c.value);

/**
 * What is typed in the page's forms, by section title and form: every change redraws every
 * section (a schedule shows in the assignments and the roster, a holiday in the roster), and a
 * half-filled form elsewhere on the page was lost with it. Not the form just sent (it starts
 * afresh), nor a schedule being changed (the change is called off).
 */
function typedIn(holder: HTMLElement, sent: EventTarget | null): Map<string, (string | boolean)[]> {
  const typed = new Map<string, (string | boolean)[]>();
  holder.querySelectorAll('form').forEach((form, i) => {
    if (form === sent || form.dataset.editing === 'true') return;
    typed.set(formKey(form, i), controlsOf(form).map(stateOf));
  });
  return typed;
}

/** Puts back what was typed (typedIn) into the redrawn forms of the same shape; a search form (the roster's area and week) is run again. */
function keepTyped(holder: HTMLElement, typed: Map<string, (string | boolean)[]>): void {
  holder.querySelectorAll('form').forEach((form, i) => {
    const before = typed.get(formKey(form, i));
    const controls = controlsOf(form);
    if (!before || before.length !== controls.length) return;
    let changed = false;
    controls.forEach((c, j) => {
      const was = before[j]!;
      if (stateOf(c) === was) return;
      if (typeof was === 'boolean' && c instanceof HTMLInputElement) c.checked = was;
      else c.value = String(was);
      // The form's own reactions follow (a picker's "touched", the fields an assignment's target shows).
      c.dispatchEvent(new Event('input', { bubbles: true }));
      c.dispatchEvent(new Event('change', { bubbles: true }));
      changed = true;
    });
    if (changed && form.getAttribute('role') === 'search') form.requestSubmit();
  });
}

const formKey = (form: HTMLFormElement, index: number) => `${form.closest('section')?.querySelector('h2')?.textContent ?? ''}#${index}`;

/**
 * Keeps what is typed in the forms of `holder` across its redraws: `snapshot()` before one,
 * `restore()` after. The form whose change is being saved (the last one sent, but a search form)
 * starts afresh.
 */
export function typedKeeper(holder: HTMLElement): { snapshot(): Map<string, (string | boolean)[]>; restore(typed: Map<string, (string | boolean)[]>): void } {
  let sent: EventTarget | null = null;
  holder.addEventListener(
    'submit',
    (event) => {
      if (event.target instanceof HTMLFormElement && event.target.getAttribute('role') !== 'search') sent = event.target;
    },
    true,
  );
  return {
    snapshot() {
      const typed = typedIn(holder, sent);
      sent = null;
      return typed;
    },
    restore: (typed) => keepTyped(holder, typed),
  };
}
