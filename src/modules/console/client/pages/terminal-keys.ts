/** A terminal's communication keys: issue one (shown once), revoke one. */
import type { DeviceKeyView } from '../../../devices';
import { api } from '../api';
import { announce, badge, button, confirmAction, h, replace, section, showOnce, table } from '../dom';
import { dateTime } from '../format';

export function keysSection(keys: DeviceKeyView[], pinnedAddress: string | null, base: string, redraw: () => Promise<void>): HTMLElement {
  const slot = h('div');
  const issue = button('Issue a key', async () => {
    const issued = await api.post<DeviceKeyView & { key: string }>(`${base}keys/`);
    replace(
      slot,
      showOnce(
        'Communication key',
        issued.key,
        'Enter it as the terminal’s Comm Key now: it is shown this once. From now on only requests with a key are accepted.',
      ),
    );
  });
  return section(
    'Communication keys',
    table(
      ['Key', 'Issued', 'By', 'State', ''],
      keys.map((k) => [
        k.legacy ? `${k.id.slice(0, 8)} (legacy: issue a new one)` : k.id.slice(0, 8),
        dateTime(k.created_at),
        k.created_by,
        k.revoked_at ? badge('Revoked', 'muted') : badge('Active', 'ok'),
        k.revoked_at
          ? ''
          : button(
              'Revoke',
              async () => {
                if (!(await confirmAction('Revoke this key?', { action: 'Revoke', detail: 'A terminal using it is refused until it has another key.' })))
                  return;
                await api.delete(`${base}keys/${encodeURIComponent(k.id)}/`);
                await redraw();
                announce('Key revoked.');
              },
              { 'aria-label': `Revoke the key ${k.id.slice(0, 8)} issued ${dateTime(k.created_at)}` },
            ),
      ]),
      pinnedAddress ? `No keys: the terminal is trusted at its address, ${pinnedAddress}.` : 'No keys: the terminal is known by its serial number only.',
    ),
    issue,
    slot,
  );
}
