import type { RunningProcess } from '../../support/processes.js';
import { readiness, requestToken, sessionFor, vendorView, type Fleet } from '../fleet.js';
import { counterSum, vendorCounts, vendorDelta, type VendorCounts } from './load.js';

/** What one cold burst did. */
export interface ColdBurst {
  /** Answers by status. */
  statuses: Record<number, number>;
  /** Milliseconds of every request answered 200, and of the slowest request of any status. */
  okMs: number[];
  maxMs: number;
  /** Customers that got a token, and the vendor calls the burst made. */
  served: number;
  vendor: VendorCounts;
  /** Customers answered two different tokens, or a token of another customer. */
  inconsistent: number;
  /** Vendor calls that waited for their budget slot (`embed_bff_budget_queued_total`). */
  budgetWaits: number;
  /** Locks the processes granted themselves because the store was lost (`embed_bff_store_local_locks_total`): the only way to a duplicate call. */
  localLocks: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The cold burst: `customers` new customers × `perCustomer` token requests, all at once,
 * alternating between two BFF processes started for it (`env` over the fleet's: a vendor account
 * of its own, so each burst meets a full budget and a cold process, as the first burst after a
 * deploy does), stopped after it. Every token is checked against the vendor.
 */
export async function coldBurst(fleet: Fleet<unknown>, env: Record<string, string>, prefix: string, customers = 40, perCustomer = 10): Promise<ColdBurst> {
  const bffs = await Promise.all([fleet.addBff({ ...env, EMBED_METRICS_PORT: '0' }), fleet.addBff({ ...env, EMBED_METRICS_PORT: '0' })]);
  try {
    for (
      const deadline = Date.now() + 20_000;
      !(await Promise.all(bffs.map((bff) => readiness(bff).catch(() => 0)))).every((s) => s === 200);
      await sleep(50)
    ) {
      if (Date.now() > deadline) throw new Error('the burst BFF processes did not become ready');
    }
    const orgs = Array.from({ length: customers }, (_, i) => `${prefix}-${i}`);
    const sessions = await Promise.all(orgs.map(sessionFor));
    const before = await vendorCounts(fleet.emulator);
    const answers = await Promise.all(
      orgs.flatMap((org, g) =>
        Array.from({ length: perCustomer }, async (_, r) => {
          const started = Date.now();
          const answer = await requestToken(bffs[(g + r) % 2]!, sessions[g]!);
          return { org, answer, ms: Date.now() - started };
        }),
      ),
    );
    const vendor = vendorDelta(await vendorCounts(fleet.emulator), before);
    const statuses: Record<number, number> = {};
    const tokens = new Map<string, Set<string>>();
    for (const { org, answer } of answers) {
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (answer.token !== undefined) tokens.set(org, (tokens.get(org) ?? new Set()).add(answer.token));
    }
    let inconsistent = 0;
    for (const [org, set] of tokens) {
      if (set.size !== 1 || (await vendorView(fleet.emulator, [...set][0]!)).name !== `Org ${org}`) inconsistent++;
    }
    return {
      statuses,
      okMs: answers.filter((a) => a.answer.status === 200).map((a) => a.ms),
      maxMs: Math.max(...answers.map((a) => a.ms)),
      served: tokens.size,
      vendor,
      inconsistent,
      budgetWaits: await summed(bffs, 'embed_bff_budget_queued_total'),
      localLocks: await summed(bffs, 'embed_bff_store_local_locks_total'),
    };
  } finally {
    await Promise.all(bffs.map((bff) => bff.stop()));
  }
}

/** A counter's series summed over `bffs`. */
const summed = async (bffs: RunningProcess[], name: string): Promise<number> => [...(await counterSum(bffs, name)).values()].reduce((sum, n) => sum + n, 0);
