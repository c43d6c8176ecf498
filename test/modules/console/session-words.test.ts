/**
 * An enrollment session's status and reason as the person's page says them: every reason the
 * server writes (src/modules/enrollment) in plain words with what to do next, never an API path,
 * a return code or the API's own sentence.
 */
import { describe, expect, test } from 'bun:test';
import { type SessionPlace, sessionReason, sessionStatus } from '../../../src/modules/console/client/session-words';

const AT: SessionPlace = { serial: 'NRTH0001', terminal: 'North gate' };
const AGENT: SessionPlace = { serial: null, terminal: null };
const said = (reason: string, place = AT) =>
  sessionReason(reason, place)
    .map((w) => (typeof w === 'string' ? w : `[${w.text}](${w.href})`))
    .join('');

describe('a session’s status', () => {
  test('an open one at a terminal waits for the person there; at a desktop agent, for the agent', () => {
    expect(sessionStatus('open', AT)).toBe('Waiting for the person at North gate');
    expect(sessionStatus('open', { serial: 'EAST0001', terminal: null })).toBe('Waiting for the person at EAST0001');
    expect(sessionStatus('open', AGENT)).toBe('Waiting for the agent');
    expect(sessionStatus('failed', AT)).toBe('Failed');
  });
});

describe('a session’s reason', () => {
  test('the terminal’s own user under the PIN: adopt it on the terminal’s People on the terminal, linked', () => {
    const reason =
      'the template of finger 6 was rejected: PIN 10000 on the terminal is its own user, not the one the service wrote there, so the template was kept as theirs (devices/NRTH0001/users/: adopt the user as the enrollee or remove it, then start again)';
    expect(said(reason)).toBe(
      'North gate already has its own user with PIN 10000, so it kept the right index as that user’s. Open the terminal’s [People on the terminal](#/terminals/NRTH0001) and Adopt that user as this person (or Remove it), then start again.',
    );
  });

  test('other refusals of the part the terminal sent', () => {
    expect(said('the template of finger 3 was rejected: the enrollee with this PIN is not in this terminal’s areas and it is not an enrollment station')).toBe(
      'The terminal sent the left index, but it was refused: this person is not in any of the terminal’s areas and it is not an enrollment station. Add one of its areas to the person, or enroll at an enrollment station.',
    );
    expect(said('the template of palm 1 was rejected: consent is required before a template is stored')).toBe(
      'The terminal sent the right palm, but it was refused: this person’s consent is not on record. Record it, then start again.',
    );
    expect(said('the template of finger 2 was rejected: an enrollee may have at most 2 fingers')).toContain('a person may have at most 2 fingerprints');
    expect(said('the template of face 0 was rejected: the face template is 90000 bytes; the limit is 65536')).toBe(
      'The terminal sent the face (near-infrared), but it was refused: the template the terminal sent cannot be used. Start again; if it happens again, tell your administrator.',
    );
  });

  test('what the terminal answered the enroll command with', () => {
    expect(said('ENROLL_FP for finger 6 failed: Return=4 (enrollment failed (bad quality or the captures did not match))')).toBe(
      'The terminal could not enroll the right index: bad quality, or the captures did not match. Start again and place it steadily.',
    );
    expect(said('ENROLL_BIO for palm 1 failed: Return=6 (cancelled on the terminal)')).toBe(
      'Cancelled on the terminal while it was asking for the right palm.',
    );
    expect(said('ENROLL_FP for finger 6 expired before the terminal answered')).toBe(
      'The terminal did not take the request for the right index in time: check that it is online, then start again.',
    );
    expect(said('ENROLL_FP for finger 6 failed: Return=-1001 (the terminal is full)')).toBe(
      'The terminal could not enroll the right index: the terminal is full. Start again; if it happens again, tell your administrator.',
    );
    expect(said('ENROLL_FP for finger 6 failed: no result from the terminal')).toBe(
      'The terminal gave no answer about the right index. Start again; if it happens again, tell your administrator.',
    );
  });

  test('templates the terminal said it enrolled that never came; a lifetime that ended', () => {
    expect(said('finger 3, finger 6: the terminal answered the enroll command as done but the template has not arrived')).toBe(
      'The terminal said it enrolled the left index and the right index, but the template has not arrived yet.',
    );
    expect(
      said('finger 6: the terminal answered the enroll command as done but the template never arrived; another remote enrollment was started on the terminal'),
    ).toBe(
      'The terminal said it enrolled the right index, but the template never arrived. Another enrollment was started on the terminal, so this one ended: start again.',
    );
    expect(said('session lifetime ended')).toBe('Nobody finished it in time. Start again when the person is ready.');
    expect(said('session lifetime ended; finger 6: the terminal answered the enroll command as done but the template has not arrived')).toBe(
      'Nobody finished it in time. The terminal said it enrolled the right index, but the template never arrived. Start again when the person is ready.',
    );
  });

  test('a session ended by the service or an agent', () => {
    expect(said('consent withdrawn', AGENT)).toBe('Ended: the person’s consent was withdrawn.');
    expect(said('enrollee deactivated', AGENT)).toBe('Ended: the person was deactivated. Reactivate them to enroll again.');
    expect(said('agent revoked', AGENT)).toBe('Ended: the desktop agent was revoked. Start again at another agent or at a terminal.');
    expect(said('cancelled by the agent', AGENT)).toBe('Cancelled at the desktop agent.');
    // An agent's own words, as it gave them.
    expect(said('reader unplugged', AGENT)).toBe('Reader unplugged.');
    expect(sessionReason(null, AGENT)).toEqual([]);
  });
});
