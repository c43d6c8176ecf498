/**
 * What enrollment does when other modules' events are recorded (wired in src/app/reactions.ts;
 * each runs inside the transaction that recorded the event): a person's open sessions end when
 * their consent is withdrawn or they are deactivated or deleted, and a terminal's answer to a
 * remote enrollment command moves that session on.
 */
import type { BiometricEvents } from '../biometrics';
import type { CommandEvents } from '../commands';
import type { EnrolleeEvents } from '../enrollees';
import type { ReactionTo } from '../events';
import type { Enrollment } from './module';

/** consent_withdrawn: the person's open sessions are cancelled. */
export const closeSessionsOnWithdrawal =
  ({ sessions }: Enrollment): ReactionTo<BiometricEvents, 'consent_withdrawn'> =>
  async (w, withdrawn) => {
    for (const { data } of withdrawn) await sessions.closeOpenOf(w, data.enrollee, 'consent withdrawn');
  };

/** enrollee_deleted: the person's open sessions are cancelled. */
export const closeSessionsOfDeleted =
  ({ sessions }: Enrollment): ReactionTo<EnrolleeEvents, 'enrollee_deleted'> =>
  async (w, deleted) => {
    for (const { data } of deleted) await sessions.closeOpenOf(w, data.enrollee.id, 'enrollee deleted');
  };

/** enrollee_updated (deactivated): the person's open sessions are cancelled. */
export const closeSessionsOfDeactivated =
  ({ sessions }: Enrollment): ReactionTo<EnrolleeEvents, 'enrollee_updated'> =>
  async (w, updated) => {
    for (const { data } of updated) {
      if (data.changes.status?.to === 'deactivated') await sessions.closeOpenOf(w, data.enrollee.id, 'enrollee deactivated');
    }
  };

/** device_command_finished: a remote enrollment's command answered moves its session on. */
export const advanceRemoteSessions =
  ({ remote }: Enrollment): ReactionTo<CommandEvents, 'device_command_finished'> =>
  async (w, finished) => {
    for (const event of finished) await remote.onCommandFinished(w, event);
  };
