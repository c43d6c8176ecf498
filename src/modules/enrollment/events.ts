/** What the enrollment module announces. */
export interface EnrollmentEvents {
  enrollment_session_closed: {
    session: string;
    kind: 'agent' | 'remote';
    status: 'completed' | 'cancelled' | 'expired' | 'failed';
    enrollee: string;
    reason: string | null;
  };
}
