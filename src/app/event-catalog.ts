/**
 * Every event type of the log, what raises it, and an example of its data: the README's event
 * table is generated from here (`bun src/cli.ts readme`), the examples are checked by the type
 * checker against the modules' own event types, and the event-types test checks that real
 * events carry no field an example does not show.
 */
import type { FpaEventName, LoggedEvents } from './events';

interface EventDoc<K extends FpaEventName> {
  about: string;
  example: LoggedEvents[K];
}

export const EVENT_CATALOG: { [K in FpaEventName]: EventDoc<K> } = {
  device_registered: {
    about: 'A terminal the service did not know made contact; it waits for approval (`ip` as seen by the service).',
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, ip: '127.0.0.1' },
  },
  device_updated: {
    about:
      'A terminal changed: an administrator edited it, or the terminal reported new firmware, algorithm versions or capabilities (`by` is then `device:<serial>`). `changes` holds only what changed, each before and after; this example shows every field it can hold (areas as ids; `parameters` names the reported parameters that changed).',
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      by: 'hr.officer@example.com',
      status: 'approved',
      changes: {
        name: { from: null, to: 'Front door' },
        time_zone: { from: null, to: 'Europe/Berlin' },
        areas: { from: ['e2a7c5d1-4b9f-4e8a-b3c6-0f1d8a9e7b23'], to: ['e2a7c5d1-4b9f-4e8a-b3c6-0f1d8a9e7b23', '9d3b6f10-7c2e-4a85-b1d9-3e5f7a2c8b46'] },
        enrollment_station: { from: false, to: true },
        algorithm_version: { from: null, to: '10' },
        firmware: { from: 'ZAM170-NF-Ver1.1.27', to: 'ZAM170-NF-Ver1.1.30' },
        parameters: ['MultiBioDataSupport', 'FaceVersion', '~MaxUserCount'],
      },
    },
  },
  device_approved: {
    about: 'An administrator approved a terminal into areas (ids); it is asked for its users and sent everyone in scope.',
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      by: 'hr.officer@example.com',
      areas: ['e2a7c5d1-4b9f-4e8a-b3c6-0f1d8a9e7b23'],
    },
  },
  device_disabled: {
    about: 'An administrator disabled a terminal: its data is refused and its commands expire.',
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, by: 'hr.officer@example.com' },
  },
  device_online: {
    about:
      'A terminal was heard from again; `away_seconds` since its last contact (null for the first one). A request it is not trusted with (from an address it is not pinned to, or without the key it needs) is not hearing from it.',
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, status: 'approved', away_seconds: 90 },
  },
  device_offline: {
    about: 'A terminal was silent for `DEVICE_OFFLINE_AFTER`.',
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, last_seen_at: '2026-11-24T02:09:10.521Z' },
  },
  device_clock_drifting: {
    about: "A real-time upload showed the terminal's clock off by more than `DEVICE_CLOCK_DRIFT_MAX` (seconds; positive: ahead).",
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, drift_seconds: 299 },
  },
  device_address_changed: {
    about:
      'A request for an approved terminal without a communication key came from an address other than the one it is pinned to (`ADMS_TRUST=address`): its punches are stored flagged `new_address`, it is sent no users, cards or templates, until an administrator confirms the address (`POST devices/{sn}/confirm-address/`). Raised when the address it is heard from changes, at most once an hour per address (per instance): requests alternating between two addresses raise it twice an hour, not on every request.',
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, pinned_ip: '192.168.1.40', ip: '192.168.7.23' },
  },
  device_removed: {
    about:
      'An administrator removed a terminal; its punches stay, its unfinished commands are cancelled except the deletes it owes, which it is sent if it comes back (as pending, under its old id).',
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, by: 'hr.officer@example.com' },
  },
  device_command_finished: {
    about:
      "A command to a terminal ended (`succeeded`, `failed`, `expired`, `cancelled`), with the terminal's return code. `command.kind` is the command's kind as `devices/{sn}/commands/` shows it (`query_users`, `reupload_logs`, `update_template`…). The payload depends on the kind and holds references only (PIN, enrollee id, kind and index, template id and version) and the service's own bookkeeping (why a query or delete was sent, a re-upload's range): never a name, a card number, a password, an operator's raw command text or template bytes (a user record's name and card go to the terminal, not into the log).",
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      command: {
        id: 12,
        kind: 'update_template',
        payload: { pin: '10000', type: 'fingerprint', fingerIndex: 6, slot: 0, templateId: 'a81f3c27-5e94-4d0b-9c6e-2f7b1d8e4a59', templateVersion: 1 },
        session: null,
      },
      status: 'succeeded',
      return_code: 0,
    },
  },
  device_resynced: {
    about:
      'Every in-scope user and template was queued to a terminal again, and (but for `drift`) the enrollees outside its scope deleted from it, or, for one adopted or linked by a walk-up there, asked for their fingerprints before the delete ("Rolling out onto an existing fleet", step 7) (`queued` counts those deletes and queries too; `reason`: `requested`, `approved`, `returned` after a long absence, `cleared` after CLEAR DATA, `drift`: the hourly reconciliation found fewer users on the terminal than expected, asked it for them and queued again only those it no longer holds).',
    example: { device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' }, full: false, queued: 1, reason: 'approved' },
  },
  terminal_user_conflict: {
    about:
      'An enrollee was not written to a terminal because a user of that terminal holds their PIN and is someone else; an administrator adopts or removes that user.',
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      pin: '10000',
      enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
    },
  },
  terminal_user_adopted: {
    about:
      "A terminal's own user became an enrollee; `punches` of theirs that the terminal had sent were attributed (`punches_attributed` just before it). Adopted as a new enrollee, both follow that person's `enrollee_created`.",
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      pin: '7',
      enrollee: 'b4d2f9a8-6e15-4c37-8d0b-91a3e7c2f605',
      punches: 1,
      by: 'hr.officer@example.com',
    },
  },
  enrollee_created: {
    about: 'A person was enrolled (their PIN, area ids, and whether they have a card: `card` is `true` or `false`, never the card number, which opens doors).',
    example: {
      enrollee: { id: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01', employee: 'E-1001', device_pin: '10000', display_name: 'Ada Obi', card: false },
      areas: ['e2a7c5d1-4b9f-4e8a-b3c6-0f1d8a9e7b23'],
      by: 'hr.officer@example.com',
    },
  },
  enrollee_updated: {
    about:
      'An enrollee changed: `changes` holds each field before and after; this example shows every field it can hold. A change of `areas` also holds `effective_from`: the first date judged under the new areas (the date after the move’s in ATTENDANCE_TIME_ZONE, or a later one). A change of `card` says whether a card was set before and after (`true` to `true`: replaced by another), never which card (as `enrollee_card_changed`); `enrollee.card` likewise says only whether they have one.',
    example: {
      enrollee: { id: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01', employee: 'E-1001', device_pin: '10000', display_name: 'Ada O.', card: true },
      changes: {
        display_name: { from: 'Ada Obi', to: 'Ada O.' },
        status: { from: 'active', to: 'deactivated' },
        areas: { from: ['e2a7c5d1-4b9f-4e8a-b3c6-0f1d8a9e7b23'], to: ['9d3b6f10-7c2e-4a85-b1d9-3e5f7a2c8b46'], effective_from: '2026-11-25' },
        card: { from: false, to: true },
      },
      by: 'hr.officer@example.com',
    },
  },
  enrollee_deleted: {
    about:
      'An enrollee was deleted: their templates are destroyed and they are removed from every terminal. The log keeps the id and employee key only (no name, PIN or card); in-process listeners get the whole record.',
    example: {
      enrollee: { id: 'b4d2f9a8-6e15-4c37-8d0b-91a3e7c2f605', employee: 'E-1002' },
      by: 'hr.officer@example.com',
    },
  },
  enrollee_card_changed: {
    about:
      'A terminal filled the card of an enrollee who had none (badged at its menu); it is sent to their other terminals. A terminal never replaces a card an administrator set (that terminal gets the enrollee’s card back), nor brings back one an administrator removed (that terminal gets the enrollee without a card). The card number is not in the event.',
    example: {
      enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      by: 'device:CQUZ233860018',
    },
  },
  consent_given: {
    about: 'Biometric consent was recorded (text version, method, who recorded it).',
    example: { enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01', version: 'v1', method: 'paper', by: 'hr.officer@example.com' },
  },
  consent_withdrawn: {
    about:
      'Consent was withdrawn: every template of every kind is destroyed and deleted from every terminal. Also recorded when no consent was on record but the withdrawal destroyed something of the person’s (templates stored while consent was not required, parts a terminal was refused as theirs and kept); a withdrawal that finds nothing to withdraw records no event.',
    example: { enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01', by: 'hr.officer@example.com' },
  },
  deletion_proof_completed: {
    about:
      "Every terminal that held a person's data confirmed its delete (or none held any): their deletion proof (`GET enrollees/{id}/deletion-proof/`, signed) is complete; again when a proof reopened by their data back on a terminal completes again. `reason`: `consent_withdrawn` or `deleted`; `terminals`: how many confirmed.",
    example: {
      enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
      reason: 'consent_withdrawn',
      requested_at: '2026-11-24T02:09:10.521Z',
      completed_at: '2026-11-25T07:41:03.118Z',
      terminals: 2,
    },
  },
  template_stored: {
    about: 'A biometric template was stored (encrypted): kind, body part, algorithm version, and where it came from. Never the bytes.',
    example: {
      enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
      type: 'fingerprint',
      index: 6,
      part: 0,
      algorithm_version: '10',
      version: 1,
      source: 'device',
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
    },
  },
  templates_destroyed: {
    about:
      'Templates of an enrollee were destroyed (`reason`: consent withdrawn, deleted, retention); raised only when at least one was (`count` ≥ 1). A withdrawal or deletion that finds none writes only its audit entry `templates.destroyed` (`count: 0`): the record that nothing was held.',
    example: { enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01', count: 1, reason: 'consent withdrawn' },
  },
  template_rejected: {
    about:
      'A walk-up template from a terminal was refused (unknown PIN, no consent, kind or finger not allowed, out of scope); nothing was stored. `enrollee`: the person it was taken to be (null: an unknown PIN, nobody’s). `type` is a kind of template, or, on the user of a person whose consent was withdrawn or who was deleted, a biometric the service does not keep (`face_photo`, `user_photo`…), for which that user is deleted there.',
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      pin: '10001',
      index: 6,
      type: 'fingerprint',
      reason: 'consent_required',
      enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
    },
  },
  enrollment_session_closed: {
    about: 'An agent or remote enrollment session ended (`completed`, `cancelled`, `expired`, `failed`), with the reason.',
    example: {
      session: '2d3f2ab5-bb96-4532-90e0-5c20f3341b42',
      kind: 'agent',
      status: 'cancelled',
      enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
      reason: 'consent withdrawn',
    },
  },
  punch_received: {
    about:
      'A punch was stored. `sender` is the terminal (null for a manual or imported punch, which carries `by`); `punch.source` is `device`, `manual` or `import`. The log keeps a reference: `punch` is the punch as it is when read (a later void or attribution shows), null once retention has purged it.',
    example: {
      punch: {
        sequence: 1,
        id: '91d7bed7-4610-4b98-befe-df6538dccb39',
        employee: 'E-1001',
        enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
        device_pin: '10000',
        device: 'CQUZ233860018',
        punched_at: '2026-03-02T08:00:00.000Z',
        local_time: '2026-03-02 08:00:00',
        utc_offset_minutes: 0,
        state: 0,
        verify_type: 1,
        work_code: '0',
        flags: [],
        received_at: '2026-11-24T02:09:10.746Z',
        source: 'device',
        voided: false,
        correction_reason: null,
        void_reason: null,
      },
      sender: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
    },
  },
  punch_voided: {
    about:
      'An administrator voided a punch: it stays listed (`voided: true`) and no longer counts. `reason` is the reason given, also the punch’s `void_reason`; a manual punch keeps the reason it was entered with (`correction_reason`). As for `punch_received`, `punch` is the punch as it is when read, null once purged.',
    example: {
      punch: {
        sequence: 4,
        id: 'f85496f0-de94-431b-9851-8469b5efbdb1',
        employee: 'E-1002',
        enrollee: 'b4d2f9a8-6e15-4c37-8d0b-91a3e7c2f605',
        device_pin: '7',
        device: null,
        punched_at: '2026-11-24T02:08:10.829Z',
        local_time: '2026-11-24 02:08:10',
        utc_offset_minutes: 0,
        state: 0,
        verify_type: 0,
        work_code: '',
        flags: [],
        received_at: '2026-11-24T02:09:10.837Z',
        source: 'manual',
        voided: true,
        correction_reason: 'forgot to punch',
        void_reason: 'entered twice',
      },
      reason: 'entered twice',
      by: 'hr.officer@example.com',
    },
  },
  punches_attributed: {
    about: 'Punches stored for a PIN without an enrollee were attributed to one (an adopted terminal user); their days follow.',
    example: {
      enrollee: 'b4d2f9a8-6e15-4c37-8d0b-91a3e7c2f605',
      employee: 'E-1002',
      device_pin: '7',
      count: 2,
      first_punched_at: '2026-03-02T07:58:12.000Z',
      last_punched_at: '2026-03-02T17:04:40.000Z',
    },
  },
  calendar_changed: {
    about:
      "A holiday, weekend, leave, schedule or assignment changed, or an area’s time zone (`kind` `area_zone`: its people are judged in another zone), or a host said its calendar did: the people (`enrollees`, `areas`, or everyone when neither is given) and dates it touches; attendance days follow it, and so do `while_on_leave` anomalies when a leave (or the host's calendar, or an area's time zone) changed. This example shows a leave.",
    example: {
      kind: 'leave',
      id: 'c62fa283-3296-4b52-bbca-e6abbbd686f1',
      enrollees: ['7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01'],
      ranges: [{ from: '2026-03-09', to: '2026-03-13' }],
      by: 'hr.officer@example.com',
    },
  },
  attendance_day_changed: {
    about:
      'An attendance day was written or changed (punches, a correction, a calendar change, a recompute, or generate-absences writing a day without punches: absent, a day off, a holiday, leave).',
    example: {
      day: {
        employee: 'E-1001',
        enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
        date: '2026-03-02',
        first_in: '2026-03-02T08:00:00.000Z',
        last_out: '2026-03-02T17:00:00.000Z',
        worked_seconds: 32400,
        punch_count: 2,
        status: 'present',
        flags: [],
        schedule: null,
        expected_seconds: 0,
        late_seconds: 0,
        early_leave_seconds: 0,
        overtime_seconds: 0,
      },
    },
  },
  attendance_day_removed: {
    about: 'A day of today or later lost its last punch; it has no record until it is over.',
    example: { enrollee: 'b4d2f9a8-6e15-4c37-8d0b-91a3e7c2f605', employee: 'E-1002', date: '2026-11-24' },
  },
  pay_period_locked: {
    about: 'A pay period was locked: its days never change again.',
    example: {
      pay_period: {
        id: 'f5a0da75-ede7-4aae-8aaf-b8d3b3916dbc',
        from: '2026-03-01',
        to: '2026-03-15',
        locked: true,
        locked_at: '2026-11-24T02:09:10.935Z',
        locked_by: 'hr.officer@example.com',
        created_at: '2026-11-24T02:09:10.929Z',
      },
      by: 'hr.officer@example.com',
    },
  },
  punch_gap_found: {
    about:
      'The attendance record count a terminal reports (`TransactionCount`) grew more than the punches stored from it since they last agreed, and stayed so: `missing` punches. A re-upload of the range since the last agreement (`DATA QUERY ATTLOG`) was queued (`recovery`, null when `PUNCH_RECOVERY` is off or the terminal failed one within the hour).',
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      reason: 'count_mismatch',
      missing: 30,
      reported: 130,
      stored: 100,
      recovery: { id: '5b0e9d7c-2f4a-4e61-9c38-7a1d2e6f0b94', from: '2026-11-23 08:50:00', to: '2026-11-24 10:12:40', command: 57 },
    },
  },
  punch_gap_closed: {
    about:
      'A re-upload ended: `recovered` punches were new (stored de-duplicated), `remaining` of the `missing` were not found (0: complete). `status` `failed` when the terminal refused it or never answered (the gap stays open and is asked again after an hour). A re-upload after an outage (`reason` `terminal_outage`, `server_outage`) is announced only when it found punches.',
    example: {
      device: { id: '3f6a1c9e-82d4-4b5a-a7e0-5d9c2b8e1f47', serial_number: 'CQUZ233860018' },
      reason: 'count_mismatch',
      recovery: { id: '5b0e9d7c-2f4a-4e61-9c38-7a1d2e6f0b94', from: '2026-11-23 08:50:00', to: '2026-11-24 10:12:40', command: 57 },
      status: 'done',
      recovered: 30,
      remaining: 0,
      return_code: 0,
    },
  },
  anomaly_detected: {
    about:
      "A punch deserves a look (`anomalies/`): a PIN, password or card where the terminal holds the person's biometric (`verified_without_biometric`), two terminals too far apart for the time between (`impossible_travel`, `TRAVEL_MINUTES`), a punch on a day of leave (`while_on_leave`: as the punch is stored, or after the commit of a leave recorded later for a day already punched, as attendance days follow it), the same person again within `DUPLICATE_WINDOW` (`repeated_punch`, on the later punch of the two). The punch carries the kind among its flags; attendance is not changed. When the earlier punch of a `repeated_punch` arrives last (a backlog, a re-upload, an import), the flag goes on the later punch, stored before: this event, in the same transaction, is what says its flags changed (a `punch_received` already sent showed it without). `details` depends on the kind; this example shows `impossible_travel`.",
    example: {
      anomaly: {
        id: '019ab3f2-7c41-7d2e-9f10-3e5a8b1c2d47',
        kind: 'impossible_travel',
        employee: 'E-1001',
        enrollee: '7c1e4a52-0d3b-4f7e-9a61-2b8f5c3d9e01',
        device: 'CQUZ233860018',
        punch: '019ab3f2-7b90-7a11-8c5e-4f2d1a0b9e63',
        at: '2026-03-02T08:08:00.000Z',
        date: '2026-03-02',
        details: {
          other_punch: '019ab3f2-6e02-7c33-a1b4-9d8e7f6a5b21',
          other_device: 'CQUZ233860042',
          other_at: '2026-03-02T08:00:00.000Z',
          from_area: 'north',
          to_area: 'south',
          minutes_apart: 8,
          minutes_needed: 40,
        },
        detected_at: '2026-03-02T08:08:01.112Z',
      },
    },
  },
  anomaly_removed: {
    about:
      "An anomaly no longer holds: a `while_on_leave` whose leave was removed or is now of another kind (a leave deleted at `leaves/{id}/`, or the host said its calendar changed). The anomaly as `anomalies/` listed it: it is listed no more, and its punch no longer carries the kind among its flags. A leave now of another kind is detected anew (`anomaly_detected`, after this event). Followed after the leave's change is committed, as attendance days are.",
    example: {
      anomaly: {
        id: '019ab3f2-8d15-7e40-a2c6-5b7f9e0d1c38',
        kind: 'while_on_leave',
        employee: 'E-1002',
        enrollee: 'b4d2f9a8-6e15-4c37-8d0b-91a3e7c2f605',
        device: 'CQUZ233860018',
        punch: '019ab3f2-8c77-7b52-9d03-6e1a4f8b2c95',
        at: '2026-11-27T09:00:00.000Z',
        date: '2026-11-27',
        details: { leave: 'vacation' },
        detected_at: '2026-11-27T09:00:00.412Z',
      },
    },
  },
};

/** Every event type by name, at run time (webhook endpoints subscribe to these). */
export const FPA_EVENT_TYPES = Object.keys(EVENT_CATALOG) as FpaEventName[];
