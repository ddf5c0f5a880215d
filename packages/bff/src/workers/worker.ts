import type { Hono } from 'hono';
import { createBffApp } from '../app.js';
import { appOptions, vendorOptions } from '../env/app-options.js';
import { BffError } from '../errors/bff-error.js';
import type { BffAppOptions } from '../options.js';
import { parseWorkerBindings } from './bindings.js';
import { createDurableObjectStore } from './durable-object-store.js';

/** What `createWorker` hands the runtime: the Worker's `fetch` handler. */
export interface BffWorker {
  fetch(request: Request, env: Readonly<Record<string, unknown>>, ctx?: unknown): Promise<Response>;
}

export interface WorkerOptions {
  /** More `createBffApp` options over those the bindings make (an `identify` hook, a `basePath`, …). */
  app?: (env: Readonly<Record<string, unknown>>) => Partial<Omit<BffAppOptions, 'upstream' | 'store'>>;
  /** Where the configuration problems go, one line each. Default `console.error`. */
  report?: (line: string) => void;
}

/**
 * The BFF as a Cloudflare Worker: `createBffApp` configured from the Worker's bindings (the CLI's
 * keys and rules, `parseWorkerBindings`), the vendor's Customer API over `fetch`, and the
 * Durable Object store. The app is built on the first request of an isolate (bindings arrive with
 * requests) and kept. A configuration with problems is reported once, one line per problem, and
 * every request is answered 500 `internal` without detail.
 *
 * @example
 * ```ts
 * import { createWorker, EmbedStore } from '@embedded-dashboard/bff/workers';
 * export { EmbedStore };
 * export default createWorker();
 * ```
 */
export function createWorker(options: WorkerOptions = {}): BffWorker {
  const report = options.report ?? ((line: string) => console.error(line));
  const built = new WeakMap<object, Hono | BffError>();
  const build = (env: Readonly<Record<string, unknown>>): Hono | BffError => {
    const { config, problems } = parseWorkerBindings(env);
    if (config === undefined) {
      for (const problem of problems) report(`config: ${problem}`);
      return new BffError('internal', 'the service is not configured', { retryable: false });
    }
    return createBffApp({
      ...appOptions(config),
      // No vendor call waits behind another request's for a slot of this isolate's client: workerd
      // held in-flight calls to their 3 s timeout while requests queued for the shared slots (a cold
      // burst of 60, maxInFlight 8). The fleet's pace is the vendor budget's, one object per account.
      ...vendorOptions(config, { maxInFlight: 1_000 }),
      // EMBED_KEY_PREFIX is in the app's keys already (as with Redis).
      store: createDurableObjectStore(config.store),
      ...options.app?.(env),
    });
  };
  return {
    async fetch(request, env, ctx) {
      let app = built.get(env);
      if (app === undefined) {
        app = build(env);
        built.set(env, app);
      }
      if (app instanceof BffError) return app.getResponse();
      return app.fetch(request, env, ctx as never);
    },
  };
}
