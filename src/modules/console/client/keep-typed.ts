/**
 * What is typed in a page's forms, kept across a redraw of the page (pages/plan.ts: every change
 * there redraws every section: a schedule shows in the assignments and the roster, a holiday in
 * the roster), where a half-filled form elsewhere on the page was lost with it.
 */

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** One form's state: its fields by position, and its ticked boxes by value (the boxes of a list may change between two draws). */
interface FormState {
  fields: string[];
  ticked: Set<string>;
  boxes: Set<string>;
}

type Typed = Map<string, FormState>;

const isBox = (c: Control): c is HTMLInputElement => c instanceof HTMLInputElement && (c.type === 'checkbox' || c.type === 'radio');
const controlsOf = (form: HTMLFormElement): Control[] => Array.from(form.querySelectorAll<Control>('input, select, textarea')).filter((c) => c.type !== 'file');
const fieldsOf = (form: HTMLFormElement) => controlsOf(form).filter((c) => !isBox(c));
const boxesOf = (form: HTMLFormElement) => controlsOf(form).filter(isBox);
const isSearch = (form: HTMLFormElement) => form.getAttribute('role') === 'search';
/** A save that failed shows its errors in the form (form-errors.ts): what was typed is still wanted. */
const failed = (form: HTMLFormElement) => form.querySelector('.form-error, [aria-invalid="true"]') !== null;

/** Each form of the holder with its key: its section's title and its place in that section. */
function keyedForms(holder: HTMLElement): [string, HTMLFormElement][] {
  const seen = new Map<string, number>();
  return Array.from(holder.querySelectorAll('form')).map((form) => {
    const section = form.closest('section')?.querySelector('h2')?.textContent ?? '';
    const index = seen.get(section) ?? 0;
    seen.set(section, index + 1);
    return [`${section}#${index}`, form];
  });
}

/** What is typed in the holder's forms; not the form just saved (it starts afresh), nor a schedule being changed (the change is called off). */
function typedIn(holder: HTMLElement, sent: HTMLFormElement | null): Typed {
  const typed: Typed = new Map();
  for (const [key, form] of keyedForms(holder)) {
    if ((form === sent && !failed(form)) || form.dataset.editing === 'true') continue;
    const boxes = boxesOf(form);
    typed.set(key, {
      fields: fieldsOf(form).map((c) => c.value),
      ticked: new Set(boxes.filter((b) => b.checked).map((b) => b.value)),
      boxes: new Set(boxes.map((b) => b.value)),
    });
  }
  return typed;
}

/**
 * Puts back what was typed into the redrawn forms: fields where the form has the same fields,
 * boxes by their value (a box that was not there before keeps its default). The form's own
 * reactions follow (a picker's "touched", the fields an assignment's target shows); a search
 * form (the roster's area and week) is run again once, with everything in place.
 */
function keepTyped(holder: HTMLElement, typed: Typed): void {
  for (const [key, form] of keyedForms(holder)) {
    const before = typed.get(key);
    if (!before) continue;
    const changed: Control[] = [];
    const fields = fieldsOf(form);
    if (fields.length === before.fields.length) {
      fields.forEach((c, i) => {
        if (c.value === before.fields[i]) return;
        c.value = before.fields[i]!;
        changed.push(c);
      });
    }
    for (const box of boxesOf(form)) {
      if (!before.boxes.has(box.value) || box.checked === before.ticked.has(box.value)) continue;
      box.checked = before.ticked.has(box.value);
      changed.push(box);
    }
    if (changed.length === 0) continue;
    if (isSearch(form)) form.requestSubmit();
    else
      for (const c of changed) {
        c.dispatchEvent(new Event('input', { bubbles: true }));
        c.dispatchEvent(new Event('change', { bubbles: true }));
      }
  }
}

/**
 * Keeps what is typed in the forms of `holder` across its redraws: `snapshot()` before one,
 * `restore()` after. The form whose change is being saved (the last one sent, but a search form)
 * starts afresh, unless its save failed.
 */
export function typedKeeper(holder: HTMLElement): { snapshot(): Typed; restore(typed: Typed): void } {
  let sent: HTMLFormElement | null = null;
  holder.addEventListener(
    'submit',
    (event) => {
      if (event.target instanceof HTMLFormElement && !isSearch(event.target)) sent = event.target;
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
