/** `closed`: calls go through. `open`: calls fail at once. `half-open`: one probe is out. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * One circuit's states and times (the breaker keeps one for the account and one per failing
 * customer): closed; open until a time; then half-open with one probe out. A failed probe opens
 * it again for twice as long (up to `maxOpenMs`); closing resets the open time.
 */
export class Circuit {
  #state: CircuitState = 'closed';
  #failures = 0;
  #openUntil = 0;
  #openMs: number;
  readonly #baseOpenMs: number;
  readonly #maxOpenMs: number;

  constructor(openMs: number, maxOpenMs: number) {
    this.#baseOpenMs = openMs;
    this.#openMs = openMs;
    this.#maxOpenMs = maxOpenMs;
  }

  get state(): CircuitState {
    return this.#state;
  }

  /** How long it stays open this time. */
  get openMs(): number {
    return this.#openMs;
  }

  /** `false`: closed, the call goes through; `true`: the call is the half-open probe; else it must fail fast. */
  admit(now: number): boolean | { retryAfterMs: number } {
    if (this.#state === 'closed') return false;
    if (this.#state === 'open' && now >= this.#openUntil) {
      this.#state = 'half-open';
      return true;
    }
    return { retryAfterMs: this.#state === 'open' ? this.#openUntil - now : 1000 };
  }

  /** Counts one failure in a row; returns whether that opened the circuit. */
  failed(now: number, threshold: number): boolean {
    this.#failures += 1;
    if (this.#state !== 'closed' || this.#failures < threshold) return false;
    this.open(now);
    return true;
  }

  open(now: number): void {
    this.#state = 'open';
    this.#openUntil = now + this.#openMs;
  }

  /** The probe failed: open again, for twice as long. */
  reopen(now: number): void {
    this.#openMs = Math.min(this.#maxOpenMs, this.#openMs * 2);
    this.open(now);
  }

  /** The probe never reached the vendor (the budget refused it): open, and the next call probes. */
  probeUnanswered(): void {
    this.#state = 'open';
  }

  /** Closes it; returns whether it was open or probing. */
  close(): boolean {
    this.#failures = 0;
    if (this.#state === 'closed') return false;
    this.#state = 'closed';
    this.#openMs = this.#baseOpenMs;
    return true;
  }
}
