/** Whose a PIN's punches on a terminal are, punch by punch (service.ts `whose`, terminals/usb-import.ts). */
import type { PinHolder } from '../enrollees';

/** Whose a PIN's punches on a terminal are (`whose`): `leftAt`, their user left it then (holderAt). */
export interface PunchOwner extends PinHolder {
  leftAt?: number;
}

/**
 * Whose a punch at `punchedAt` is, of its PIN's holder on the terminal (`whose`): a deleted
 * person's if they made it before they were deleted (their last day is payroll's), a person's
 * who left the terminal if they made it before their user was deleted there; one made after
 * either, by whoever the terminal still lets in (or holds under that PIN now), is nobody's.
 */
export function holderAt(holder: PunchOwner | undefined, punchedAt: number): PunchOwner | undefined {
  if (holder?.deletedAt !== undefined && punchedAt > holder.deletedAt) return undefined;
  if (holder?.leftAt !== undefined && punchedAt > holder.leftAt) return undefined;
  return holder;
}
