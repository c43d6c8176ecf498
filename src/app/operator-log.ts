/**
 * The fleet's news in the server log, at `info`: what an operator reading the log (journalctl,
 * docker logs) expects to find without the API: a terminal knocking, approved, registered by an
 * administrator, online for the first time, disabled, removed, gone silent or back, its clock
 * off, a pay period locked. One line per event, the
 * terminal named by its serial; never a person's name, card or template (events carry ids only).
 * In-process listeners of the log (after the commit), so each line is written once, by the
 * instance that recorded the event.
 */
import type { EventBus } from '../modules/events';
import type { Logger } from '../platform/log';
import type { FpaEvents } from './events';

type Serial = { device: { serial_number: string } };
const serial = (p: Serial) => p.device.serial_number;

export function logFleetNews(bus: EventBus<FpaEvents>, log: Logger): void {
  // A terminal an administrator registered (POST devices/) did not knock, and its approval came
  // with the registration: one line says what happened. Its first contact says it next.
  bus.on('device_registered', (p) =>
    p.registered_by === undefined
      ? log.info('terminal knocking, waiting for approval', { serial: serial(p), ip: p.ip })
      : log.info('terminal registered by an administrator', { serial: serial(p), by: p.registered_by }),
  );
  bus.on('device_approved', (p) => {
    if (!p.registered) log.info('terminal approved', { serial: serial(p), by: p.by });
  });
  bus.on('device_disabled', (p) => log.info('terminal disabled', { serial: serial(p), by: p.by }));
  bus.on('device_removed', (p) => log.info('terminal removed', { serial: serial(p), by: p.by }));
  bus.on('device_offline', (p) => log.info('terminal offline', { serial: serial(p), last_seen_at: p.last_seen_at }));
  // Never heard from before (a terminal registered ahead of its arrival): its first contact, not a return.
  bus.on('device_online', (p) =>
    p.away_seconds === null
      ? log.info('terminal online for the first time', { serial: serial(p) })
      : log.info('terminal back online', { serial: serial(p), away_seconds: p.away_seconds }),
  );
  bus.on('device_clock_drifting', (p) => log.info('terminal clock drifting', { serial: serial(p), drift_seconds: p.drift_seconds }));
  bus.on('pay_period_locked', (p) => log.info('pay period locked', { from: p.pay_period.from, to: p.pay_period.to, by: p.by }));
}
