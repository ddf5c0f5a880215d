/**
 * The Worker the workerd tests run: the BFF as an integrator's Worker has it (`createWorker()`
 * and `EmbedStore` from @embedded-dashboard/bff/workers; a longer store deadline, below), plus two test-only
 * doors, both served by the same isolate:
 * - `/__store/<op>`: the Durable Object store's operations as JSON, so the store contract suite
 *   (run by vitest in Node) drives `createDurableObjectStore` inside workerd;
 * - `/__variant/<name>/...`: the BFF with some bindings replaced (`VARIANTS`, JSON: name -> the
 *   bindings to set, `null` to remove), each reporting its configuration problems to `/__reports`.
 */
import { createDurableObjectStore, createWorker, EmbedStore, type EmbedStoreNamespace } from '@embedded-dashboard/bff/workers';
import type { GroupEntry, LockHandle } from '@embedded-dashboard/bff';

export { EmbedStore };

type Env = Record<string, unknown> & { EMBED_STORE: EmbedStoreNamespace; VARIANTS?: string };

// Two isolates, 60 concurrent first visits, two emulators and vitest share two busy cores here: a
// Durable Object call can take over the default 1 s store deadline, and the BFF would then (as
// designed, ARCHITECTURE §4 "Store outage") fall back to a budget and single-flight per isolate.
// The cases test the Durable Object design, so the deadline is 10 s; everything else is the default.
const app = () => ({ storeTimeoutMs: 10_000 });
const bff = createWorker({ app });
const reports: string[] = [];
const variantWorker = createWorker({ app, report: (line) => reports.push(line) });
const variantEnvs = new Map<string, Record<string, unknown>>();
const locks = new Map<string, LockHandle>();

const json = (value: unknown, status = 200) => new Response(JSON.stringify(value ?? null), { status, headers: { 'content-type': 'application/json' } });

async function store(op: string, request: Request, env: Env): Promise<Response> {
  const body = (await request.json()) as { key: string; entry: GroupEntry; ttlMs: number; windowMs: number; request: never; id: string; superseded: string[] };
  const s = createDurableObjectStore(env.EMBED_STORE, { keyPrefix: request.headers.get('x-store-prefix') ?? 'embed:' });
  try {
    switch (op) {
      case 'get':
        return json({ entry: await s.get(body.key) });
      case 'set':
        return json(await s.set(body.key, body.entry, body.ttlMs));
      case 'setIfAbsent':
        return json(await s.setIfAbsent(body.key, body.entry, body.ttlMs));
      case 'setIfAbsentOrSuperseded':
        return json(await s.setIfAbsentOrSuperseded(body.key, body.entry, body.ttlMs, body.superseded));
      case 'delete':
        return json(await s.delete(body.key));
      case 'tryLock': {
        const lock = await s.tryLock(body.key, body.ttlMs);
        if (lock === undefined) return json(null);
        const id = crypto.randomUUID();
        locks.set(id, lock);
        return json(id);
      }
      case 'release':
        return json(await locks.get(body.id)?.release());
      case 'extend': {
        const lock = locks.get(body.id);
        return json(lock === undefined ? false : await lock.extend!(body.ttlMs));
      }
      case 'hit':
        return json(await s.hit(body.key, body.windowMs));
      case 'reserveBudget':
        return json(await s.reserveBudget(body.key, body.request));
      case 'ping':
        return json(await s.ping());
      default:
        return json({ error: 'no such op' }, 404);
    }
  } catch (error) {
    return json({ error: (error as Error).name, message: (error as Error).message }, error instanceof TypeError ? 400 : 500);
  }
}

function variant(name: string, env: Env): Record<string, unknown> {
  let found = variantEnvs.get(name);
  if (found === undefined) {
    const changes = (JSON.parse(env.VARIANTS ?? '{}') as Record<string, Record<string, unknown>>)[name] ?? {};
    found = { ...env };
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete found[key];
      else found[key] = value;
    }
    variantEnvs.set(name, found);
  }
  return found;
}

export default {
  async fetch(request: Request, env: Env, ctx: unknown): Promise<Response> {
    const url = new URL(request.url);
    const [, door, name] = url.pathname.split('/');
    if (door === '__store' && name !== undefined) return store(name, request, env);
    if (door === '__reports') return json(reports.splice(0));
    if (door === '__variant' && name !== undefined) {
      url.pathname = url.pathname.slice(`/__variant/${name}`.length);
      return variantWorker.fetch(new Request(url, request), variant(name, env), ctx);
    }
    return bff.fetch(request, env, ctx);
  },
};
