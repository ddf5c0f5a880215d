import { Redis } from 'ioredis';
import type { RunningProcess } from '../../support/processes.js';
import { requestRotation, requestToken, sessionFor, vendorStats, vendorView, type TokenAnswer } from '../fleet.js';

/**
 * The chaos harness: a steady, bounded load of new and returning customers and rotations through
 * several BFF processes, each customer asking as its element would (one request at a time, a
 * retryable answer asked again after its `Retry-After`, a token the dashboard refuses rotated),
 * and every answer checked against the vendor: the token must be of the customer's own group.
 * The counts are the fleet's promises under a fault (ARCHITECTURE §4, "The fleet under faults").
 */

/** One customer: its session, and the token its element holds. */
export interface Customer {
  org: string;
  session: string;
  token: string | undefined;
  /** When its element last rotated (the BFF refuses a rotation inside the minimum interval). */
  rotatedAt: number;
  busy: boolean;
  /** What its element asked and was answered (for a scenario's report when a promise breaks). */
  history: string[];
}

export interface ChaosCounts {
  /** Requests sent, and answered 200. */
  requests: number;
  ok: number;
  /** 5xx answers marked retryable, with `Retry-After` (the budget's deliberate 503s among them). */
  retryable: number;
  /** 5xx answers not marked retryable, or without `Retry-After`: a broken promise. */
  nonRetryable: number;
  /** Other refusals, by status (a 429 rotation throttle, …). */
  refused: Record<string, number>;
  /** Requests whose connection died with a killed BFF process (the element asks again). */
  lost: number;
  /** A retry, after a retryable answer, that was not served. */
  retryNotServed: number;
  /** Tokens of another customer's group: a broken promise. */
  foreign: number;
  /** Tokens the vendor no longer accepted when handed out, and how many of them the element's rotation then replaced. */
  dead: number;
  deadRepaired: number;
  /** Customers created, returning visits, rotations that got a new token. */
  created: number;
  returning: number;
  rotated: number;
  /** Actions that ended without a token (after every retry). */
  unserved: number;
  /** Actions whose first answer was not a token, by kind: a returning customer among them was not served from the cache. */
  notServedAtOnce: Record<ActionKind, number>;
}

export type ActionKind = 'new' | 'returning' | 'rotation';

const zero = (): ChaosCounts => ({
  requests: 0,
  ok: 0,
  retryable: 0,
  nonRetryable: 0,
  refused: {},
  lost: 0,
  retryNotServed: 0,
  foreign: 0,
  dead: 0,
  deadRepaired: 0,
  created: 0,
  returning: 0,
  rotated: 0,
  unserved: 0,
  notServedAtOnce: { new: 0, returning: 0, rotation: 0 },
});

export interface LoadRates {
  /** Per second. */
  newCustomers: number;
  returning: number;
  rotations: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The BFF's minimum rotation interval (10 s) and a margin. */
export const ROTATION_SPACING_MS = 11_000;
const MAX_ATTEMPTS = 6;

/**
 * Customers served through `bffs()` (read at every request: a killed process is replaced there),
 * checked against `emulator`. Each customer is one element: its actions never overlap.
 */
export class ChaosLoad {
  readonly customers: Customer[] = [];
  counts: ChaosCounts = zero();
  readonly #bffs: () => readonly RunningProcess[];
  readonly #emulator: RunningProcess;
  readonly #prefix: string;
  #next = 0;
  #turn = 0;
  #inFlight = new Set<Promise<void>>();
  /** The scheduled rotations in flight, and whether new ones are held back (see `withoutRotations`). */
  #rotations = new Set<Promise<void>>();
  #rotationsHeld = false;
  #returning: (customer: Customer) => boolean = () => true;
  #maxAttempts = MAX_ATTEMPTS;

  constructor(bffs: () => readonly RunningProcess[], emulator: RunningProcess, prefix: string) {
    this.#bffs = bffs;
    this.#emulator = emulator;
    this.#prefix = prefix;
  }

  /**
   * Creates `count` customers, serves each (their first visit), then has each come back once
   * through every process: customers a fleet has been serving for a while.
   */
  async warmUp(count: number): Promise<void> {
    await Promise.all(Array.from({ length: count }, () => this.#visitNew()));
    await this.finalCheck();
    this.reset();
  }

  /** Runs the load at `rates` until `stop` resolves, then waits for the actions in flight; `returning` picks who comes back (default: anyone served). */
  async run(rates: LoadRates, stop: Promise<unknown>, options: { returning?: (customer: Customer) => boolean; maxAttempts?: number } = {}): Promise<void> {
    this.#returning = options.returning ?? (() => true);
    this.#maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
    let running = true;
    void stop.finally(() => {
      running = false;
    });
    const tickMs = 50;
    const owed = { newCustomers: 0, returning: 0, rotations: 0 };
    while (running) {
      for (const kind of ['newCustomers', 'returning', 'rotations'] as const) {
        owed[kind] += (rates[kind] * tickMs) / 1000;
        for (; owed[kind] >= 1; owed[kind] -= 1) this.#start(kind);
      }
      await sleep(tickMs);
    }
    await this.settled();
    this.#maxAttempts = MAX_ATTEMPTS;
  }

  /** Resolves once no action is in flight. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /**
   * Runs `work` while no scheduled rotation is in flight or starts (the other actions go on): a
   * fault that must tell its own rotation at the vendor from the load's counts the vendor's rotates.
   */
  async withoutRotations<T>(work: () => Promise<T>): Promise<T> {
    this.#rotationsHeld = true;
    try {
      while (this.#rotations.size > 0) await Promise.all([...this.#rotations]);
      return await work();
    } finally {
      this.#rotationsHeld = false;
    }
  }

  #start(kind: keyof LoadRates): void {
    if (kind === 'rotations' && this.#rotationsHeld) return;
    const action =
      kind === 'newCustomers'
        ? this.#visitNew()
        : kind === 'returning'
          ? this.#pick(
              (c) => c.token !== undefined && this.#returning(c),
              (c) => this.#visit(c),
            )
          : this.#pick(
              (c) => c.token !== undefined && Date.now() - c.rotatedAt > ROTATION_SPACING_MS,
              (c) => this.#rotate(c),
            );
    if (action === undefined) return;
    this.#inFlight.add(action);
    void action.finally(() => this.#inFlight.delete(action));
    if (kind === 'rotations') {
      this.#rotations.add(action);
      void action.finally(() => this.#rotations.delete(action));
    }
  }

  #pick(eligible: (c: Customer) => boolean, act: (c: Customer) => Promise<void>): Promise<void> | undefined {
    const idle = this.customers.filter((c) => !c.busy && eligible(c));
    if (idle.length === 0) return undefined;
    return act(idle[Math.floor(Math.random() * idle.length)]!);
  }

  async #visitNew(): Promise<void> {
    const customer: Customer = { org: `${this.#prefix}-${this.#next++}`, session: '', token: undefined, rotatedAt: 0, busy: true, history: [] };
    customer.session = await sessionFor(customer.org);
    this.customers.push(customer);
    this.counts.created++;
    customer.busy = false;
    await this.#visit(customer, 'new');
  }

  /** A page view: the element asks for the customer's token. */
  async #visit(customer: Customer, kind: ActionKind = 'returning'): Promise<void> {
    await this.#as(customer, async () => {
      if (kind === 'returning') this.counts.returning++;
      await this.#ask(customer, kind, (bff) => requestToken(bff, customer.session));
    });
  }

  /** The element's scheduled refresh: it rotates the token it holds. */
  async #rotate(customer: Customer): Promise<void> {
    await this.#as(customer, async () => {
      const held = customer.token!;
      customer.rotatedAt = Date.now();
      if ((await this.#ask(customer, 'rotation', (bff) => requestRotation(bff, customer.session, held))) && customer.token !== held) this.counts.rotated++;
    });
  }

  async #as(customer: Customer, act: () => Promise<void>): Promise<void> {
    if (customer.busy) return;
    customer.busy = true;
    try {
      await act();
    } finally {
      customer.busy = false;
    }
  }

  /** The next live BFF, round robin. */
  #bff(): RunningProcess {
    const live = this.#bffs().filter((bff) => bff.child.exitCode === null && bff.child.signalCode === null);
    if (live.length === 0) throw new Error('no BFF process is running');
    return live[this.#turn++ % live.length]!;
  }

  /**
   * Asks as the element does, until served or out of attempts; checks the token it gets (and,
   * if the vendor refuses it, rotates it as the element does when its dashboard says so).
   * Resolves whether the customer ended with a good token.
   */
  async #ask(customer: Customer, kind: ActionKind, request: (bff: RunningProcess) => Promise<TokenAnswer>, repairing = false): Promise<boolean> {
    let failedBefore = false;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      let answer: TokenAnswer;
      this.counts.requests++;
      const bff = this.#bff();
      try {
        answer = await request(bff);
        customer.history.push(
          `${new Date().toISOString().slice(11, 23)} ${kind}${repairing ? ' (repair)' : ''} via ${bff.child.pid} held ${customer.token?.slice(0, 8)} -> ${answer.status} ${answer.token?.slice(0, 8) ?? answer.code ?? ''}`,
        );
      } catch {
        // The process died under the request (a load balancer would send the next one elsewhere).
        this.counts.lost++;
        continue;
      }
      if (answer.status === 200 && answer.token !== undefined) {
        this.counts.ok++;
        return this.#check(customer, answer.token, repairing);
      }
      if (attempt === 1) this.counts.notServedAtOnce[kind]++;
      if (failedBefore) this.counts.retryNotServed++;
      if (answer.status >= 500) {
        if (answer.retryable === true && answer.retryAfter !== undefined) this.counts.retryable++;
        else this.counts.nonRetryable++;
      } else {
        this.counts.refused[answer.status] = (this.counts.refused[answer.status] ?? 0) + 1;
      }
      const retryable = answer.status === 429 || (answer.status >= 500 && answer.retryable === true);
      if (!retryable) break;
      failedBefore = true;
      await sleep(Math.min(answer.retryAfter ?? 1, 3) * 1000);
    }
    this.counts.unserved++;
    return false;
  }

  /** Checks a token handed to `customer` against the vendor. */
  async #check(customer: Customer, token: string, repairing: boolean): Promise<boolean> {
    const view = await vendorView(this.#emulator, token);
    if (view.alive && view.name !== `Org ${customer.org}`) {
      this.counts.foreign++;
      return false;
    }
    customer.token = token;
    if (view.alive) {
      if (repairing) this.counts.deadRepaired++;
      return true;
    }
    this.counts.dead++;
    if (repairing) return false;
    // The dashboard says tokenExpired; the element rotates the token it holds.
    customer.rotatedAt = Date.now();
    return this.#ask(customer, 'rotation', (bff) => requestRotation(bff, customer.session, token), true);
  }

  /** Every idle customer asks once more through every live process (after the fault): each must be served its own live token. */
  async finalCheck(): Promise<{ asked: number; served: number }> {
    let [asked, served] = [0, 0];
    const bffs = this.#bffs().filter((bff) => bff.child.exitCode === null && bff.child.signalCode === null);
    await Promise.all(
      this.customers.map((customer) =>
        this.#as(customer, async () => {
          for (const bff of bffs) {
            asked++;
            if (await this.#ask(customer, 'returning', () => requestToken(bff, customer.session))) served++;
          }
        }),
      ),
    );
    return { asked, served };
  }

  /** Starts counting afresh (the customers stay). */
  reset(): void {
    this.counts = zero();
  }
}

/** The vendor calls each BFF process's budget admitted, by priority (`embed_bff_budget_used_total`), keyed by pid. */
export async function budgetUsed(bffs: readonly RunningProcess[]): Promise<Map<number, Record<string, number>>> {
  const used = new Map<number, Record<string, number>>();
  for (const bff of bffs) {
    const text = await metricsOf(bff);
    if (text === undefined) continue;
    const counts: Record<string, number> = {};
    for (const [, priority, value] of text.matchAll(/^embed_bff_budget_used_total\{priority="([^"]+)"\} (\d+)/gm)) counts[priority!] = Number(value);
    used.set(bff.child.pid!, counts);
  }
  return used;
}

/** A live BFF process's Prometheus metrics (its CLI started with EMBED_METRICS_PORT), or `undefined`. */
async function metricsOf(bff: RunningProcess): Promise<string | undefined> {
  const line = bff.output.find((l) => l.includes('"metrics listening"'));
  if (line === undefined || bff.child.exitCode !== null || bff.child.signalCode !== null) return undefined;
  const response = await fetch((JSON.parse(line) as { url: string }).url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
  return (await response?.text()) ?? '';
}

/** Per process (pid), the sum of a counter's series in its metrics. */
export async function counterSum(bffs: readonly RunningProcess[], name: string): Promise<Map<number, number>> {
  const sums = new Map<number, number>();
  const series = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'gm');
  for (const bff of bffs) {
    const text = await metricsOf(bff);
    if (text === undefined) continue;
    let sum = 0;
    for (const [, value] of text.matchAll(series)) sum += Number(value);
    sums.set(bff.child.pid!, sum);
  }
  return sums;
}

/** Per process (pid), the locks it granted itself so far because the store was lost (not merely slow). */
export const storeLocalLocks = (bffs: readonly RunningProcess[]): Promise<Map<number, number>> => counterSum(bffs, 'embed_bff_store_local_locks_total');

/** What the processes alive at the end counted since `before` (a process started meanwhile counts from zero), summed by priority. */
export function budgetDelta(after: Map<number, Record<string, number>>, before: Map<number, Record<string, number>>): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const [pid, counts] of after) {
    for (const [priority, value] of Object.entries(counts)) sum[priority] = (sum[priority] ?? 0) + value - (before.get(pid)?.[priority] ?? 0);
  }
  return Object.fromEntries(Object.entries(sum).filter(([, value]) => value !== 0));
}

/** The vendor's counters, to diff around a scenario. */
export async function vendorCounts(emulator: RunningProcess) {
  const stats = await vendorStats(emulator);
  return { getOrCreate: stats.requests.getOrCreate, update: stats.requests.update, rotate: stats.requests.rotate, rateLimited: stats.rejected.rateLimited };
}
export type VendorCounts = Awaited<ReturnType<typeof vendorCounts>>;
export const vendorDelta = (after: VendorCounts, before: VendorCounts): VendorCounts => ({
  getOrCreate: after.getOrCreate - before.getOrCreate,
  update: after.update - before.update,
  rotate: after.rotate - before.rotate,
  rateLimited: after.rateLimited - before.rateLimited,
});

/**
 * Every group entry the store holds on `nodes` (each a Redis master's port), checked against the
 * vendor: `stale` counts entries whose token the vendor no longer accepts (rotated away), or
 * that belong to another group than the key's.
 */
export async function checkStore(ports: readonly number[], emulator: RunningProcess): Promise<{ entries: number; stale: string[] }> {
  const stale: string[] = [];
  let entries = 0;
  for (const port of ports) {
    const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      for (let cursor = '0'; ;) {
        const [next, keys] = await redis.scan(cursor, 'MATCH', '*group:*', 'COUNT', 500);
        for (const key of keys) {
          if (key.includes('account-environment')) continue;
          const raw = await redis.get(key).catch(() => null);
          const token = raw === null ? undefined : (JSON.parse(raw) as { e?: { token?: string } }).e?.token;
          if (token === undefined) continue;
          entries++;
          const org = decodeURIComponent(
            key.slice(key.lastIndexOf('group:=') + 'group:='.length).replace(/%([0-9a-f]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          )
            .split(':')
            .pop();
          const view = await vendorView(emulator, token);
          if (!view.alive || view.name !== `Org ${org}`)
            stale.push(`${org}: ${view.alive ? `token of ${view.name}` : `rotated-away token ${token.slice(0, 8)}`}`);
        }
        cursor = next;
        if (cursor === '0') break;
      }
    } finally {
      redis.disconnect();
    }
  }
  return { entries, stale };
}

/** One line of the chaos table, for the test output. */
export function chaosLine(
  scenario: string,
  counts: ChaosCounts,
  vendor: VendorCounts,
  expected: { getOrCreate: number; rotate: number; forced: string },
  store: { entries: number; stale: string[] },
  seconds: number,
  extra = '',
): string {
  const refused =
    Object.entries(counts.refused)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ') || '0';
  return [
    `chaos | ${scenario.padEnd(34)}`,
    `${seconds.toFixed(1)} s`,
    `requests ${counts.requests} (200: ${counts.ok}; new ${counts.created}, returning ${counts.returning}, rotated ${counts.rotated})`,
    `retryable 5xx ${counts.retryable}`,
    `not served at once: new ${counts.notServedAtOnce.new}, returning ${counts.notServedAtOnce.returning}, rotation ${counts.notServedAtOnce.rotation}`,
    `non-retryable 5xx ${counts.nonRetryable}`,
    `retry not served ${counts.retryNotServed}`,
    `other refusals ${refused}`,
    `lost with a killed process ${counts.lost}`,
    `foreign tokens ${counts.foreign}`,
    `dead tokens served ${counts.dead} (repaired by rotation ${counts.deadRepaired})`,
    `vendor get-or-create ${vendor.getOrCreate} for ${expected.getOrCreate} new customers, update ${vendor.update}, rotate ${vendor.rotate} for ${counts.rotated} rotations and ${counts.deadRepaired} repairs${expected.forced ? ` (${expected.forced})` : ''}`,
    `vendor 429 ${vendor.rateLimited}`,
    `store entries ${store.entries}, rotated-away ${store.stale.length}`,
    ...(extra ? [extra] : []),
  ].join(' | ');
}

/** What a scenario may cost beyond one get-or-create per new customer and one rotate per rotation, and why. */
export interface Allowance {
  /**
   * get-or-create calls the fault may force: a number, or `'one per group per process'` where the
   * store lost entries or could not say what it held (a process without a copy of a customer's
   * entry then asks the vendor once; ARCHITECTURE §4, "Store outage").
   */
  forced?: number | 'one per group per process';
  /** rotate calls beyond the rotations the customers got. */
  rotateExtra?: number;
  /**
   * update calls: none, or `'one per group'` where the store lost entries (a process without a
   * copy finds an existing group whose mapping the vendor's answer does not show, and writes it).
   */
  updates?: 'one per group';
}

export interface ScenarioSetup {
  load: ChaosLoad;
  emulator: RunningProcess;
  /** The BFF processes serving now (the scenario may replace one). */
  serving: RunningProcess[];
  /** The ports of the Redis masters holding the store now. */
  storePorts(): Promise<number[]>;
  rates: LoadRates;
  /** Where the table line (and a broken promise's story) goes. */
  report(line: string): void;
}

/** What a scenario measured. */
export interface ScenarioResult {
  name: string;
  seconds: number;
  counts: ChaosCounts;
  vendor: VendorCounts;
  expected: { getOrCreate: number; rotate: number };
  /** Calls the allowance lets the fault force. */
  allowed: { getOrCreate: number; update: number; rotate: number };
  final: { asked: number; served: number };
  store: { entries: number; stale: string[] };
  /** Vendor calls admitted by each live process's budget, by priority. */
  byPriority: Record<string, number>;
  /** Locks the live processes granted themselves because the store was lost (`store_local_locks_total`). */
  localLocks: number;
  /** What the fault itself reported (redirections, the time a failover took). */
  note: string;
  /** The table line. */
  line: string;
}

/**
 * Runs the load, with `fault` happening after 0.6 s of it (and a second of load after the
 * fault is over), then asks every customer once more through every process; measures the promises
 * (ARCHITECTURE §4, "The fleet under faults") and prints the scenario's line of the chaos table.
 */
export async function runScenario(setup: ScenarioSetup, name: string, fault: () => Promise<string | void>, allow: Allowance = {}): Promise<ScenarioResult> {
  const { load, emulator, serving } = setup;
  load.reset();
  const before = await vendorCounts(emulator);
  const usedBefore = await budgetUsed(serving);
  const localLocksBefore = await storeLocalLocks(serving);
  const known = load.customers.length;
  const started = Date.now();
  let note = '';
  let failure: unknown;
  const faulted = (async () => {
    await sleep(600);
    note = (await fault()) ?? '';
    await sleep(1_000);
  })().catch((error: unknown) => {
    failure = error;
  });
  await load.run(setup.rates, faulted);
  if (process.env.CHAOS_DEBUG) console.log(`scenario ${name}: load settled after ${Date.now() - started} ms`);
  if (failure !== undefined) throw failure as Error;
  const final = await load.finalCheck();
  if (process.env.CHAOS_DEBUG) console.log(`scenario ${name}: final check after ${Date.now() - started} ms`);
  const vendor = vendorDelta(await vendorCounts(emulator), before);
  const store = await checkStore(await setup.storePorts(), emulator);
  const counts = load.counts;
  const perGroup = load.customers.length * (allow.forced === 'one per group per process' ? serving.length : 1);
  const allowed = {
    getOrCreate: allow.forced === 'one per group per process' ? perGroup : (allow.forced ?? 0),
    update: allow.updates === 'one per group' ? load.customers.length : 0,
    rotate: allow.rotateExtra ?? 0,
  };
  const expected = { getOrCreate: load.customers.slice(known).filter((c) => c.token !== undefined).length, rotate: counts.rotated + counts.deadRepaired };
  const byPriority = budgetDelta(await budgetUsed(serving), usedBefore);
  // Locks a process granted itself because the store was lost for a key (ARCHITECTURE §4.4): the
  // only way to a get-or-create beyond one per customer, so a count over the allowance says whether
  // the store (not the BFF) was away. A process started meanwhile counts from zero.
  let localLocks = 0;
  for (const [pid, count] of await storeLocalLocks(serving)) localLocks += count - (localLocksBefore.get(pid) ?? 0);
  const seconds = (Date.now() - started) / 1000;
  const forcedText =
    allowed.getOrCreate || allowed.update || allowed.rotate
      ? `at most ${allowed.getOrCreate} get-or-create, ${allowed.update} update, ${allowed.rotate} rotate forced`
      : '';
  const extra = [
    note,
    `vendor calls by budget priority (processes alive at the end) ${JSON.stringify(byPriority)}`,
    `locks granted in the process (store lost) ${localLocks}`,
  ]
    .filter(Boolean)
    .join(' | ');
  const line = chaosLine(name, counts, vendor, { ...expected, forced: forcedText }, store, seconds, extra);
  setup.report(line);
  // A broken promise comes with the story of the customers it concerns.
  for (const stale of store.stale) {
    const customer = load.customers.find((c) => c.org === stale.split(':')[0]);
    if (customer !== undefined) setup.report(`  ${stale}; its element:\n    ${customer.history.slice(-20).join('\n    ')}`);
  }
  if (process.env.CHAOS_DEBUG)
    for (const bff of serving)
      console.log(
        bff.output
          .filter((l) => /"level":"(warn|error)"|store /.test(l))
          .slice(-40)
          .join('\n'),
      );
  return { name, seconds, counts, vendor, expected, allowed, final, store, byPriority, localLocks, note, line };
}

/** The promises a scenario broke, in words (none: it kept them all). */
export function promisesBroken(r: ScenarioResult): string[] {
  const broken: string[] = [];
  const check = (kept: boolean, what: string) => {
    if (!kept) broken.push(what);
  };
  check(r.counts.nonRetryable === 0, `${r.counts.nonRetryable} non-retryable 5xx`);
  check(r.counts.foreign === 0, `${r.counts.foreign} tokens of another customer`);
  check(r.counts.retryNotServed === 0, `${r.counts.retryNotServed} retries not served`);
  check(r.counts.unserved === 0, `${r.counts.unserved} customers never served`);
  check(r.final.served === r.final.asked, `${r.final.asked - r.final.served} of ${r.final.asked} final asks not served`);
  check(r.vendor.rateLimited === 0, `${r.vendor.rateLimited} vendor 429s`);
  check(r.vendor.update <= r.allowed.update, `${r.vendor.update} vendor updates (at most ${r.allowed.update} forced)`);
  check(
    r.vendor.getOrCreate - r.expected.getOrCreate <= r.allowed.getOrCreate,
    `${r.vendor.getOrCreate - r.expected.getOrCreate} get-or-create beyond one per new customer (at most ${r.allowed.getOrCreate} forced)`,
  );
  check(r.vendor.getOrCreate >= r.expected.getOrCreate, `${r.vendor.getOrCreate} get-or-create for ${r.expected.getOrCreate} new customers`);
  check(
    r.vendor.rotate - r.expected.rotate <= r.allowed.rotate,
    `${r.vendor.rotate - r.expected.rotate} rotations beyond the ones customers got (at most ${r.allowed.rotate} forced)`,
  );
  check(r.store.stale.length === 0, `rotated-away tokens left in the store: ${r.store.stale.join(', ')}`);
  return broken;
}
