/** The API's resources as the console reads them (docs/api.md; the OpenAPI document has them in full). */

export interface Health {
  at: string;
  terminals: { online: number; offline: number; pending: number; disabled: number };
  commands: { pending: number; failed: number };
  webhooks: { backlog: number; oldest_pending_at: string | null; oldest_pending_age_seconds: number | null };
  jobs: { name: string; last_status: string | null; last_finished_at: string | null; next_run_at: string | null }[];
  punches_today: number;
}

export interface Device {
  serial_number: string;
  name: string | null;
  status: string;
  algorithm_version: string | null;
  time_zone: string;
  areas: string[];
  last_seen_at: string | null;
  online: boolean;
  firmware: string | null;
  ip_address: string | null;
  pinned_address: string | null;
  unconfirmed_address: string | null;
  unconfirmed_address_at: string | null;
  user_count: number | null;
  fingerprint_count: number | null;
  attendance_count: number | null;
  enrollment_station: boolean;
  clock_drifting: boolean;
  clock_drift_seconds: number | null;
  created_at: string;
}

export interface DeviceDetail extends Device {
  pending_commands: number;
  templates_present: number;
  sync_check: { users: { expected: number; reported: number | null }; fingerprints: { expected: number; reported: number | null }; in_sync: boolean | null };
  recent_events: { kind: string; message: string; at: string }[];
}

export interface Command {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  created_at: string;
  sent_at: string | null;
  completed_at: string | null;
  return_code: number | null;
}

export interface TerminalUser {
  pin: string;
  name: string | null;
  card: string | null;
  enrollee: string | null;
  conflict: { enrollee: string; employee: string } | null;
  biometrics: Record<string, number>;
}

export interface DeviceKey {
  id: string;
  legacy: boolean;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
}

export interface Employee {
  id: string;
  name: string;
  active: boolean;
}

export interface Enrollee {
  id: string;
  employee: string;
  device_pin: string;
  display_name: string;
  status: string;
  areas: string[];
  consent: { version: string; method: string; given_by: string; given_at: string } | null;
  fingers: number[];
  /** The card number the person badges with (decimal), if any. */
  card: string | null;
}

export interface Template {
  id: string;
  type?: string;
  finger_index?: number;
  index?: number;
  algorithm_version: string;
  version: number;
  size: number;
  source: string;
  updated_at: string;
  sync: { device: string; status: string; detail: string | null }[];
}

export interface Session {
  id: string;
  kind: string;
  status: string;
  enrollee: { id: string; display_name: string; device_pin: string };
  fingers_requested: number[];
  fingers_captured: number[];
  agent: string | null;
  device: string | null;
  reason: string | null;
  created_at: string;
  expires_at: string;
}

export interface Punch {
  sequence: number;
  id: string;
  employee: string | null;
  enrollee: string | null;
  device_pin: string;
  device: string | null;
  punched_at: string;
  state: number;
  verify_type: number;
  flags: string[];
  source?: string;
  voided?: boolean;
  /** The reason given for a manual punch or for voiding it. */
  correction_reason?: string | null;
}

export interface AttendanceDay {
  employee: string;
  enrollee: string;
  date: string;
  first_in: string | null;
  last_out: string | null;
  worked_seconds: number;
  punch_count: number;
  status: string;
  flags: string[];
  schedule?: string | null;
  late_seconds?: number;
}

export interface Agent {
  id: string;
  name: string;
  algorithm_version: string;
  key_prefix: string;
  status: string;
  created_at: string;
  last_used_at: string | null;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
}

export interface Job {
  name: string;
  description: string;
  schedule: string | null;
  running: boolean;
  last_finished_at: string | null;
  last_status: string | null;
  next_run_at: string | null;
}

export interface AuditEntry {
  id: number;
  actor: string;
  actor_kind: string | null;
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  at: string;
  details: Record<string, unknown>;
}

export interface LogEvent {
  sequence: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/*
 * People who sign in (src/modules/users/model.ts has them in full). Written out here rather than
 * imported: the users module comes after the console in the composition root, so the console
 * cannot import it without a cycle.
 */
export type Role = 'owner' | 'admin' | 'hr' | 'manager' | 'installer' | 'viewer';
export const ROLE_NAMES: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Administrator',
  hr: 'HR officer',
  manager: 'Manager',
  installer: 'Installer',
  viewer: 'Viewer',
};

export interface User {
  id: string;
  username: string;
  name: string;
  email: string | null;
  role: Role;
  areas: string[];
  disabled: boolean;
  status: 'invited' | 'active' | 'disabled';
  second_factor: 'none' | 'totp' | 'passkey';
  created_at: string;
  updated_at: string;
  created_by: string;
}

export interface Me {
  id: string;
  kind: string;
  name: string;
  username: string;
  email: string | null;
  role: Role;
  areas: string[];
  second_factor: 'none' | 'totp' | 'passkey';
  expires_at: string | null;
}

export interface InviteInfo {
  username: string;
  name: string;
  purpose: 'invite' | 'reset';
  expires_at: string;
  password_min_length: number;
}

export interface ApiKey {
  id: string;
  name: string;
  role: Role;
  areas: string[];
  prefix: string;
  created_at: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  status: 'active' | 'expired' | 'revoked';
}
