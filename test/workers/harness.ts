import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../../packages/bff/src/store/types.js';
import type { BudgetDecision, BudgetRequest } from '../../packages/bff/src/vendor-budget/reservation.js';
import { bundleWorker, type WorkerBundle } from '../support/worker-bundle.js';

/** The compatibility date the tests, the example and the docs use. */
export const COMPATIBILITY_DATE = '2026-04-01';

let bundled: Promise<WorkerBundle> | undefined;
/** test-worker.ts bundled once per test file (esbuild, Node built-ins refused). */
export const testWorkerBundle = (): Promise<WorkerBundle> => (bundled ??= bundleWorker(testWorkerSource()));

/** test-worker.ts beside this file, or, compiled into bench/dist (the bench's rows 8d–8f), in the repository's test/workers. */
const testWorkerSource = (): string =>
  [new URL('./test-worker.ts', import.meta.url), new URL('../../../../test/workers/test-worker.ts', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((path) => existsSync(path)) ?? fileURLToPath(new URL('./test-worker.ts', import.meta.url));

/**
 * `fetch` over a connection of its own (no keep-alive): bursts of tests reuse no socket that
 * workerd is closing meanwhile (undici's pool would fail such a POST as "other side closed").
 */
export function send(url: string, init: RequestInit = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: init.method ?? 'GET', headers: { ...(init.headers as Record<string, string>), connection: 'close' }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode, headers }));
        });
      },
    );
    req.on('error', reject);
    req.end(typeof init.body === 'string' ? init.body : undefined);
  });
}

export interface Workerd {
  /** Worker `bff-a`'s address (real loopback HTTP). */
  url: string;
  /** What workerd printed (the Workers' console: the BFF's log lines), for leak checks. */
  output(): string;
  /** A request to worker `bff-b`: another isolate, the same Durable Objects. */
  fetchB(path: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

/**
 * Two Workers in one workerd (two isolates, as two Cloudflare locations would be), both the test
 * Worker, sharing the `EmbedStore` Durable Objects (SQLite-backed, persisted under `persistDir`).
 * No request leaves loopback: `cf: false` (no fetch of Cloudflare's request metadata).
 */
export async function startWorkerd(options: { bindings: Record<string, string>; persistDir: string }): Promise<Workerd> {
  const { code } = await testWorkerBundle();
  const worker = (name: string) => ({
    name,
    modules: [{ type: 'ESModule' as const, path: 'worker.js', contents: code }],
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: options.bindings,
    durableObjects: { EMBED_STORE: { className: 'EmbedStore', scriptName: 'bff-a', useSQLite: true } },
  });
  let output = '';
  const mf = new Miniflare({
    workers: [worker('bff-a'), worker('bff-b')],
    durableObjectsPersist: options.persistDir,
    cf: false,
    host: '127.0.0.1',
    port: 0,
    // The Workers' console is kept for the tests to read, not printed into the test run.
    handleRuntimeStdio: (stdout, stderr) => {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    },
  });
  const url = (await mf.ready).origin;
  const b = await mf.getWorker('bff-b');
  return {
    url,
    output: () => output,
    fetchB: async (path, init) => (await b.fetch(`${url}${path}`, init as never)) as unknown as Response,
    dispose: () => mf.dispose(),
  };
}

/** The workerd processes this process started (children named workerd, or `name`), to kill one as a crash would or read its CPU time. */
export function workerdChildren(name = 'workerd'): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (command === name && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * The Durable Object store, driven from Node through the test Worker's `/__store/<op>`: the
 * store code and the objects run in workerd. A `TypeError` there is a `TypeError` here.
 */
export function workerdStore(send: (path: string, init: RequestInit) => Promise<Response>, prefix: string): TokenStore {
  const op = async <T>(name: string, body: Record<string, unknown>): Promise<T> => {
    const res = await send(`/__store/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-store-prefix': prefix },
      body: JSON.stringify(body),
    });
    const value = (await res.json()) as T & { error?: string; message?: string };
    if (res.status === 400) throw new TypeError(value.message);
    if (!res.ok) throw new Error(`${name}: ${res.status} ${value.message ?? ''}`);
    return value;
  };
  return {
    get: async (key) => (await op<{ entry: GroupEntry | null }>('get', { key })).entry ?? undefined,
    set: async (key, entry, ttlMs) => void (await op('set', { key, entry, ttlMs })),
    setIfAbsent: (key, entry, ttlMs) => op<boolean>('setIfAbsent', { key, entry, ttlMs }),
    setIfAbsentOrSuperseded: (key, entry, ttlMs, superseded) => op<boolean>('setIfAbsentOrSuperseded', { key, entry, ttlMs, superseded }),
    delete: async (key) => void (await op('delete', { key })),
    tryLock: async (key, ttlMs): Promise<LockHandle | undefined> => {
      const id = await op<string | null>('tryLock', { key, ttlMs });
      return id === null ? undefined : { release: async () => void (await op('release', { id })), extend: (ttlMs) => op<boolean>('extend', { id, ttlMs }) };
    },
    hit: (key, windowMs) => op<WindowCount>('hit', { key, windowMs }),
    reserveBudget: (key, request: BudgetRequest) => op<BudgetDecision>('reserveBudget', { key, request }),
    ping: async () => void (await op('ping', {})),
    close: async () => undefined,
  };
}
