/**
 * Runs an async pass, never two at once. A trigger while a pass runs asks for one more pass
 * after it, so wake-ups that arrive mid-pass are never lost and never pile up. Used by the
 * webhook worker and the punch stream, which are woken by commits and by timers alike.
 */
export class CoalescingPass {
  private running = false;
  private again = false;

  /** `pass` answers true when it knows there is more to do; `mayContinue` stops repeating (shutdown). */
  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly mayContinue: () => boolean,
  ) {}

  get busy(): boolean {
    return this.running;
  }

  async trigger(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        if (await this.pass()) this.again = true;
      } while (this.again && this.mayContinue());
    } finally {
      this.running = false;
    }
  }
}
