/**
 * Typed in-process events. Every event is emitted after its transaction commits, so a
 * listener never sees data that could still roll back. A throwing listener is logged and
 * does not stop the others.
 */
import type { AttlogRecord } from '../../protocol/adms/attlog';
import type { PunchView } from '../punches/view';
import { describeError } from '../../platform/errors';

export interface DeviceRef {
  id: string;
  serial_number: string;
}

export interface PunchPayload {
  /** The parsed ADMS line. */
  line: Omit<AttlogRecord, 'raw'>;
  /** The raw line as the terminal sent it. */
  raw: string;
}

export interface FpaEvents {
  punch_received: { sender: DeviceRef; punch: PunchView; payload: PunchPayload };
  device_registered: { device: DeviceRef };
  device_approved: { device: DeviceRef; by: string };
  device_disabled: { device: DeviceRef; by: string };
  device_online: { device: DeviceRef };
  device_offline: { device: DeviceRef; lastSeenAt: string | null };
  enrollee_created: { enrolleeId: string; employee: string; devicePin: string };
  enrollee_deleted: { enrolleeId: string; by: string };
  consent_given: { enrolleeId: string; version: string; method: string; by: string };
  consent_withdrawn: { enrolleeId: string; by: string };
  template_stored: { enrolleeId: string; fingerIndex: number; version: number; source: string; deviceId: string | null };
  template_rejected: { deviceId: string; pin: string; fingerIndex: number | null; reason: string };
  templates_destroyed: { enrolleeId: string; count: number; reason: string };
  enrollment_session_closed: { sessionId: string; kind: 'agent' | 'remote'; status: string; enrolleeId: string };
  command_finished: { deviceId: string; commandId: number; kind: string; status: string; returnCode: number | null };
}

export type FpaEventName = keyof FpaEvents;
export type FpaListener<K extends FpaEventName> = (event: FpaEvents[K]) => void | Promise<void>;

export class FpaEventBus {
  private readonly listeners = new Map<FpaEventName, Set<(event: never) => void | Promise<void>>>();

  on<K extends FpaEventName>(name: K, listener: FpaListener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as (event: never) => void);
    return () => this.off(name, listener);
  }

  once<K extends FpaEventName>(name: K, listener: FpaListener<K>): () => void {
    const off = this.on(name, (event) => {
      off();
      return listener(event);
    });
    return off;
  }

  off<K extends FpaEventName>(name: K, listener: FpaListener<K>): void {
    this.listeners.get(name)?.delete(listener as (event: never) => void);
  }

  listenerCount(name: FpaEventName): number {
    return this.listeners.get(name)?.size ?? 0;
  }

  emit<K extends FpaEventName>(name: K, event: FpaEvents[K]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of set) {
      try {
        const result = (listener as FpaListener<K>)(event);
        if (result instanceof Promise) result.catch((error: unknown) => logListenerError(name, error));
      } catch (error) {
        logListenerError(name, error);
      }
    }
  }
}

function logListenerError(name: string, error: unknown): void {
  console.error(`fpa: a listener of ${name} failed: ${describeError(error)}`);
}
