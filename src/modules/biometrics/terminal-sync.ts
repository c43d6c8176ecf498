/**
 * Keeps what terminals hold in line with enrollees, consent and scope, by reacting (in the same
 * transaction) to the events of the modules below:
 *
 * - an enrollee created, or coming into a terminal's scope, is sent there with their templates;
 *   one leaving a terminal's scope, deactivated or deleted is removed from it;
 * - a renamed enrollee's user record is sent again;
 * - an approved terminal is backfilled with every in-scope enrollee;
 * - a template command's result sets the template's sync status on that terminal
 *   (`present`, `failed`, or `incompatible` when the terminal refused the algorithm, Return=-30).
 */
import type { Clock } from '../../platform/runtime';
import { type CommandService, describeReturnCode } from '../commands';
import { type DeviceService, noteOnDevice } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { ConsentService } from './consent';
import { type TemplateStore, userCommand } from './templates';

/** The terminal refused the template's algorithm version (2022+ firmware). */
const ALGORITHM_MISMATCH = -30;

export function keepTerminalsInSync(deps: {
  clock: Clock;
  enrollees: EnrolleeService;
  devices: DeviceService;
  commands: CommandService;
  templates: TemplateStore;
  consent: ConsentService;
}): void {
  const { clock, enrollees, devices, commands, templates, consent } = deps;

  enrollees.events.react('enrollee_created', async (w, created) => {
    for (const { data } of created) {
      const targets = await devices.inAreas(w.tx, data.areas);
      await commands.enqueue(
        w,
        targets.map((d) => userCommand(d.id, data.enrollee.device_pin, data.enrollee.display_name)),
      );
    }
  });

  enrollees.events.react('enrollee_updated', async (w, updates) => {
    for (const { data } of updates) {
      const { enrollee, changes } = data;
      const person = { id: enrollee.id, devicePin: enrollee.device_pin, displayName: enrollee.display_name };
      let added: Set<string> | null = null;
      if (changes.areas) {
        const before = new Set((await devices.inAreas(w.tx, changes.areas.from, ['approved', 'disabled'])).map((d) => d.id));
        const after = new Set((await devices.inAreas(w.tx, changes.areas.to, ['approved', 'disabled'])).map((d) => d.id));
        await templates.removeFromDevices(
          w,
          [person],
          [...before].filter((d) => !after.has(d)),
        );
        added = new Set([...after].filter((d) => !before.has(d)));
      }
      const wasActive = changes.status ? changes.status.from === 'active' : (await enrollees.get(enrollee.id, w.tx)).status === 'active';
      const isActive = changes.status ? changes.status.to === 'active' : wasActive;
      if (wasActive && !isActive) {
        await templates.removeFromDevices(w, [person], await templates.devicesThatMayHold(w.tx, enrollee.id));
      } else if (isActive) {
        // Reactivated: every in-scope terminal; otherwise the ones that just came into scope.
        const inScope = await templates.devicesInScope(w.tx, enrollee.id);
        for (const device of inScope.filter((d) => !wasActive || added?.has(d.id))) await templates.backfillDevice(w, device, [person]);
        if (wasActive && changes.display_name) {
          await commands.enqueue(
            w,
            inScope.filter((d) => !added?.has(d.id)).map((d) => userCommand(d.id, person.devicePin, person.displayName)),
          );
        }
      }
    }
  });

  enrollees.events.react('enrollee_deleted', async (w, deleted) => {
    for (const { data } of deleted) {
      await consent.endCurrent(w, data.enrollee.id, data.by, clock.now());
      await templates.destroyTemplatesIn(w, { id: data.enrollee.id, devicePin: data.enrollee.device_pin }, 'enrollee deleted', data.by, {
        deleteUserFromDevices: true,
      });
    }
  });

  devices.events.react('device_approved', async (w, approved) => {
    for (const { data } of approved) {
      const device = await devices.findById(w.tx, data.device.id);
      if (!device) continue;
      const inScope = await enrollees.activeInAreas(w.tx, data.areas);
      const queued = await templates.backfillDevice(w, device, inScope);
      await noteOnDevice(
        w.tx,
        device.id,
        'backfill',
        `${inScope.length} enrollees backfilled (${queued} commands queued)`,
        { enrollees: inScope.length, commands: queued },
        clock.now(),
      );
    }
  });

  devices.events.react('device_updated', async (w, updates) => {
    for (const { data } of updates) {
      const areas = data.changes.areas;
      // A pending terminal never received anyone.
      if (!areas || data.status === 'pending_approval') continue;
      const device = await devices.findById(w.tx, data.device.id);
      if (!device) continue;
      const before = await enrollees.activeInAreas(w.tx, areas.from);
      const after = await enrollees.activeInAreas(w.tx, areas.to);
      const wasIn = new Set(before.map((e) => e.id));
      const isIn = new Set(after.map((e) => e.id));
      // Enrollees that left this terminal's scope are taken off it (a disabled one gets the
      // deletes on re-approval).
      await templates.removeFromDevices(
        w,
        before.filter((e) => !isIn.has(e.id)),
        [device.id],
      );
      if (data.status === 'approved') {
        await templates.backfillDevice(
          w,
          device,
          after.filter((e) => !wasIn.has(e.id)),
        );
      }
    }
  });

  commands.events.react('device_command_finished', async (w, finished) => {
    for (const { data } of finished) {
      if (data.command.kind !== 'update_template') continue;
      const { templateId, templateVersion } = data.command.payload as { templateId?: unknown; templateVersion?: unknown };
      if (typeof templateId !== 'string') continue;
      const code = data.return_code;
      const status = data.status === 'succeeded' ? 'present' : code === ALGORITHM_MISMATCH ? 'incompatible' : 'failed';
      const detail =
        data.status === 'succeeded' ? null : data.status === 'expired' ? 'the command expired before the terminal answered' : describeReturnCode(code);
      await templates.recordSync(w.tx, templateId, data.device.id, Number(templateVersion), status, detail);
    }
  });
}
