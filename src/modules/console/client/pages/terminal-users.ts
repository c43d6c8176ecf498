/** The people a terminal holds, as it last reported them: adopt its own users, or remove them. */
import type { TerminalUserView } from '../../../fleet';
import { api, can, everyRow } from '../api';
import { announce, badge, button, confirmAction, h, input, section, table } from '../dom';
import { onSubmit } from '../form-errors';
import { biometricCounts } from '../format';

/** Every user the terminal holds, page after page: the section lists them all (a terminal holds some thousands at most). */
export function allTerminalUsers(base: string): Promise<TerminalUserView[]> {
  return everyRow<TerminalUserView>(`${base}users/`);
}

export function usersSection(users: TerminalUserView[], base: string, redraw: () => Promise<void>): HTMLElement {
  return section(
    'People on the terminal',
    h('p', { class: 'muted' }, 'As the terminal last reported them. Its own users (made at the terminal) can be adopted as people of the service, or removed.'),
    table(
      ['PIN', 'Name', 'Who', 'Biometrics', ''],
      users.map((u) => {
        const act = h('div', { class: 'actions' });
        // A PIN held by a person outside the caller's areas cannot be adopted by it: only removed.
        const heldElsewhere = u.conflict !== null && u.conflict.enrollee === null;
        if (!u.enrollee && !heldElsewhere && can('POST devices/{sn}/users/{pin}/adopt/')) {
          const employee = input({ autocomplete: 'off', 'aria-label': `Employee ID for PIN ${u.pin}`, placeholder: 'Employee ID' });
          const adopt = h('form', { class: 'mini-form' }, employee, h('button', { type: 'submit' }, 'Adopt'));
          onSubmit(adopt, { employee, enrollee: employee }, async () => {
            const body = u.conflict?.enrollee && !employee.value.trim() ? { enrollee: u.conflict.enrollee } : { employee: employee.value.trim() };
            await api.post(`${base}users/${encodeURIComponent(u.pin)}/adopt/`, body);
            await redraw();
            announce(`PIN ${u.pin} adopted.`);
          });
          act.append(adopt);
        }
        if (can('DELETE devices/{sn}/users/{pin}/'))
          act.append(
            button(
              'Remove',
              async () => {
                if (
                  !(await confirmAction(`Remove PIN ${u.pin} from the terminal?`, {
                    action: 'Remove',
                    detail: 'The user and their biometrics (fingerprints, faces, palms) are deleted from this terminal.',
                  }))
                )
                  return;
                await api.delete(`${base}users/${encodeURIComponent(u.pin)}/`);
                await redraw();
                announce(`Removal of PIN ${u.pin} queued.`);
              },
              { 'aria-label': `Remove PIN ${u.pin} from the terminal` },
            ),
          );
        const who = u.enrollee
          ? h('a', { href: `#/people/${u.enrollee}` }, 'A person of the service')
          : u.conflict
            ? badge(
                u.conflict.employee ? `Conflict: the service’s ${u.conflict.employee} has this PIN` : 'Conflict: a person outside your areas has this PIN',
                'bad',
              )
            : badge('Terminal’s own user', 'warn');
        return [u.pin, u.name ?? '—', who, biometricCounts(u.biometrics), act];
      }),
      'The terminal has not reported any users.',
    ),
  );
}
