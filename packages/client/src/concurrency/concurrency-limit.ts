/**
 * Bounds the requests one client has in flight: the vendor allows about 180 requests a minute per
 * caller, and a burst of callers must queue here rather than all hit the vendor at once.
 */
export class ConcurrencyLimit {
  readonly #size: number;
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#size = size;
    this.#free = size;
  }

  /** Resolves with a release function once a slot is free; rejects with `signal.reason` on abort. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.#releaser());
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(grant);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  /** Slots currently taken. */
  get inUse(): number {
    return this.#size - this.#free;
  }

  /** Callers queued for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free += 1;
    };
  }
}
