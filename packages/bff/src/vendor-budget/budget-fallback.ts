import { reserve, type BudgetDecision, type BudgetRequest } from './reservation.js';

/** One budget key as this process knows it. */
interface Known {
  /** The shared budget's `aheadMs` when it last answered, and when (this process's clock). */
  aheadMs: number;
  at: number;
  /** This process's own `tat` while the shared store fails (its clock). */
  tat: number;
  /** Calls admitted in this process's memory that the shared budget has not been told of. */
  debt: number;
}

/**
 * A vendor budget kept in a shared store (Redis), as one process sees it, so that the store's
 * failures never lift it: while the store fails, the process counts its calls in its own memory,
 * continuing from where the shared budget last stood (not from a full bucket); when the store
 * answers again it is told those calls (`debtCalls`) and where it stood (`floorMs`, in case it
 * lost the budget: a Redis restarted empty). A store that flaps every second therefore admits no
 * more than one that stays up. Nothing here is forgotten when the store recovers.
 */
export class BudgetFallback {
  readonly #now: () => number;
  readonly #known = new Map<string, Known>();

  constructor(now: () => number) {
    this.#now = now;
  }

  #of(key: string): Known {
    let known = this.#known.get(key);
    if (known === undefined) {
      known = { aheadMs: 0, at: this.#now(), tat: 0, debt: 0 };
      this.#known.set(key, known);
    }
    return known;
  }

  /**
   * `request` for the shared store: floored at what this process last saw of the budget, and
   * charged with the calls it admitted on its own since. Pass `debt` back to {@link answered}.
   */
  toShared(key: string, request: BudgetRequest): { request: BudgetRequest; debt: number } {
    const known = this.#of(key);
    const floorMs = known.aheadMs - (this.#now() - known.at);
    return { request: { ...request, floorMs, ...(known.debt > 0 ? { debtCalls: known.debt } : {}) }, debt: known.debt };
  }

  /** The shared store answered `decision` to a request carrying `debt` calls: they are paid. */
  answered(key: string, debt: number, decision: BudgetDecision): void {
    const known = this.#of(key);
    known.debt = Math.max(0, known.debt - debt);
    if (decision.aheadMs !== undefined) {
      known.aheadMs = decision.aheadMs;
      known.at = this.#now();
    }
  }

  /**
   * One step in this process's memory while the shared store fails, from the later of its own
   * `tat` and the shared budget as last seen; an admitted call is owed to the shared budget.
   */
  reserveLocally(key: string, request: BudgetRequest): BudgetDecision {
    const known = this.#of(key);
    const { tat, decision } = reserve(Math.max(known.tat, known.at + known.aheadMs), this.#now(), request);
    known.tat = tat;
    if (decision.admitted) known.debt += 1;
    return decision;
  }
}
