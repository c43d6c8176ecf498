/**
 * Approval first asks a terminal for its users and backfills when it answers
 * (modules/enrollment/reactions.ts). Service-level tests play that terminal here: the query
 * is taken as a poll would take it and answered, so the backfill is queued.
 */
import type { FingerprintAttendance } from '../../src/app/create';
import type { DeviceRow } from '../../src/modules/devices';

export async function answerUserQuery(fpa: FingerprintAttendance, device: DeviceRow): Promise<void> {
  fpa.service.commands.polls.markQueued(device.id);
  const body = (await fpa.service.terminals.renderer.takeBatch(device)) ?? '';
  const ids = body
    .split('\n')
    .filter((l) => l.startsWith('C:'))
    .map((l) => l.split(':')[1]!);
  if (ids.length > 0)
    await fpa.service.commands.applyResults(
      device.id,
      ids.map((id) => ({ id, returnCode: 0, cmd: 'DATA', fields: {} })),
    );
}
