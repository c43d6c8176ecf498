/** The proof as a document (what is signed): the proof's rows as they stand, each terminal's owed delete as it stands now. */
import type { Queryable } from '../../platform/db/client';
import { commandStates } from '../commands';
import { terminalsByIds } from '../devices';
import type { DeletionProofBody } from './model';
import type { DeletionProofRow, DeletionProofTerminalRow, ProofCommand, ProofRequest } from './tables';

type ProofBody = typeof DeletionProofBody.static;
type ProofTerminal = ProofBody['terminals'][number];

/** The statuses of a delete a terminal still owes (failed: retried from its queue). */
const OWED_STATUSES = new Set(['pending', 'sent', 'failed']);

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Every request of a proof, oldest first (one kept before the list was: its only request, as the row has it). */
export function requestsOf(proof: DeletionProofRow): ProofRequest[] {
  if (proof.requests.length > 0) return proof.requests;
  return [{ reason: proof.reason, at: proof.requestedAt, templatesDestroyed: proof.templatesDestroyed }];
}

export async function proofBody(
  q: Queryable,
  proof: DeletionProofRow,
  terminals: DeletionProofTerminalRow[],
  options: { now: number; unreachableAfter: number },
): Promise<ProofBody> {
  const { now } = options;
  const facts = await terminalsByIds(
    q,
    terminals.filter((t) => t.status === 'pending').map((t) => t.deviceId),
  );
  // Last heard of: its last contact (a removed one's, before its removal); never heard of, when it was removed; one forgotten altogether, the request.
  const heardOf = (t: DeletionProofTerminalRow) => {
    const f = facts.get(t.deviceId);
    return f?.lastSeenAt ?? f?.removedAt ?? proof.requestedAt;
  };
  const statusOf = (t: DeletionProofTerminalRow) => {
    if (t.status === 'confirmed') return 'confirmed' as const;
    return now - heardOf(t) > options.unreachableAfter ? ('unreachable' as const) : ('pending' as const);
  };
  const commandOf = await owedCommands(q, terminals);
  const terminal = (t: DeletionProofTerminalRow): ProofTerminal => {
    const command = commandOf(t);
    return {
      serial_number: t.serialNumber,
      status: statusOf(t),
      confirmed_at: iso(t.confirmedAt),
      last_heard_at: t.status === 'pending' ? iso(facts.get(t.deviceId)?.lastSeenAt ?? null) : null,
      command: command ? { ...command, at: iso(command.at) } : null,
      data_returned: t.returned.map((r) => ({ at: iso(r.at)!, type: r.type, index: r.index, command: r.command, was_confirmed_at: iso(r.wasConfirmedAt) })),
    };
  };
  return {
    enrollee: proof.enrolleeId,
    employee: proof.employee,
    reason: proof.reason,
    requested_at: iso(proof.requestedAt)!,
    requests: requestsOf(proof).map((r) => ({ reason: r.reason, at: iso(r.at)!, templates_destroyed: r.templatesDestroyed })),
    server: { templates_destroyed: proof.templatesDestroyed, at: iso(proof.destroyedAt)! },
    terminals: terminals.sort((a, b) => a.serialNumber.localeCompare(b.serialNumber)).map(terminal),
    complete: proof.completedAt !== null,
    completed_at: iso(proof.completedAt),
    issued_at: iso(now)!,
  };
}

/**
 * A terminal still owing: the delete it owes as it stands now (retried after an error answer,
 * with that code); one another delete took the place of (superseded) is not owed any more. With
 * none open, the last one heard of as it stands now: never a closed command as owed.
 */
async function owedCommands(q: Queryable, terminals: readonly DeletionProofTerminalRow[]): Promise<(t: DeletionProofTerminalRow) => ProofCommand | null> {
  const states = await commandStates(
    q,
    terminals.flatMap((t) => (t.status === 'pending' ? [...t.awaiting, ...(t.command ? [t.command.id] : [])] : [])),
  );
  return (t) => {
    if (t.status !== 'pending' || !t.command) return t.command;
    const live = t.awaiting.map((id) => states.get(id)).find((c) => c !== undefined && OWED_STATUSES.has(c.status));
    if (live) return { id: live.id, kind: live.kind, status: live.status, return_code: live.returnCode, at: null };
    // None open (a delete closed under its proof before this was guarded against): the last one heard of, as it stands.
    const last = states.get(t.command.id);
    return last ? { ...t.command, status: last.status, return_code: last.returnCode ?? t.command.return_code } : t.command;
  };
}
