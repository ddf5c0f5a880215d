import { Hono } from 'hono';
import { isMetabaseSecret, isRecord, METABASE_EMBED_PATHS, type MetabaseResourceKind } from '@embedded-dashboard/protocol';
import { parseFaultSettings } from '../faults/settings.js';
import type { EmulatorEnv } from '../http/body.js';
import { registerApiRoutes } from './api-routes.js';
import { faultGate, json, text } from './http.js';
import {
  METABASE_FAULT_OPERATIONS,
  parseItems,
  resolveMetabaseOptions,
  type MetabaseEmulatorOptions,
  type MetabaseFaultOperation,
  type MetabaseFaultSettings,
  type MetabaseSetup,
} from './options.js';
import { framePage, pageNonce } from './page.js';
import type { MetabaseSampleItem } from './sample-data.js';

/** A running Metabase mode: its Hono app and in-process controls (the admin routes call these too). */
export interface MetabaseEmulator {
  app: Hono<EmulatorEnv>;
  /** Replaces the fault settings (`{}` clears them); a bad one throws a `TypeError`. */
  setFaults(settings: MetabaseFaultSettings): void;
  /** Replaces the secret, the embedding switch and/or the items; a bad value throws a `TypeError`. */
  setup(change: Partial<{ secretKey: string; embeddingEnabled: boolean; items: MetabaseSampleItem[] }>): void;
  /** Requests each operation answered (faults included), since the start. */
  stats(): { requests: Record<MetabaseFaultOperation, number> };
  readonly items: readonly MetabaseSampleItem[];
}

const MAX_ADMIN_BODY = 256 * 1024;

/**
 * Creates the emulator's Metabase mode: guest embeds as Metabase serves them (the frame page at
 * `/embed/dashboard/<jwt>` and `/embed/question/<jwt>`, the embed API it calls with the token,
 * verified as Metabase verifies it, the sample rows filtered by the parameters), with fault
 * injection per operation and, with `admin`, routes to set the secret, the items and the faults.
 */
export function createMetabaseEmulator(options: MetabaseEmulatorOptions = {}): MetabaseEmulator {
  const config = resolveMetabaseOptions(options);
  let setup: MetabaseSetup = { secretKey: config.secretKey, embeddingEnabled: config.embeddingEnabled, items: config.items };
  let faults = config.faults;
  const requests = Object.fromEntries(METABASE_FAULT_OPERATIONS.map((op) => [op, 0])) as Record<MetabaseFaultOperation, number>;
  const withFaults = faultGate(() => faults, requests);

  const app = new Hono<EmulatorEnv>();
  app.onError(() => text('An error occurred.', 500));
  app.notFound(() => text('Not found.', 404));

  const page = (kind: MetabaseResourceKind) =>
    withFaults('embedPage', () => {
      const nonce = pageNonce();
      return new Response(framePage(kind, nonce), {
        status: 200,
        headers: {
          'Content-Type': 'text/html;charset=utf-8',
          'Cache-Control': 'no-store',
          'Content-Security-Policy': `default-src 'none'; base-uri 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; frame-ancestors ${config.frameAncestors.join(' ')}`,
          'X-Content-Type-Options': 'nosniff',
          'Referrer-Policy': 'strict-origin-when-cross-origin',
        },
      });
    });
  app.get(`${METABASE_EMBED_PATHS.dashboard}:token`, page('dashboard'));
  app.get(`${METABASE_EMBED_PATHS.question}:token`, page('question'));
  registerApiRoutes(app, { setup: () => setup, now: config.now, withFaults });

  const applySetup = (change: unknown) => {
    if (!isRecord(change)) throw new TypeError('setup must be an object');
    for (const key of Object.keys(change))
      if (!['secretKey', 'embeddingEnabled', 'items'].includes(key)) throw new TypeError(`unknown setup field ${JSON.stringify(key.slice(0, 64))}`);
    if (change.secretKey !== undefined && !isMetabaseSecret(change.secretKey)) throw new TypeError('secretKey must be 64 hexadecimal characters');
    if (change.embeddingEnabled !== undefined && typeof change.embeddingEnabled !== 'boolean') throw new TypeError('embeddingEnabled must be a boolean');
    const items = change.items === undefined ? setup.items : parseItems(change.items);
    setup = {
      secretKey: change.secretKey ?? setup.secretKey,
      embeddingEnabled: change.embeddingEnabled ?? setup.embeddingEnabled,
      items,
    };
  };

  if (config.admin) {
    const readBody = async (request: Request): Promise<unknown> => {
      const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') throw new TypeError('the body must be JSON (Content-Type: application/json)');
      const raw = await request.text();
      if (raw.length > MAX_ADMIN_BODY) throw new TypeError('the body is too large');
      try {
        return JSON.parse(raw);
      } catch {
        throw new TypeError('the body is not JSON');
      }
    };
    app.put('/__emulator/faults', async (c) => {
      try {
        faults = parseFaultSettings(await readBody(c.req.raw), METABASE_FAULT_OPERATIONS);
      } catch (error) {
        return json({ message: (error as Error).message }, 400);
      }
      return json({ faults });
    });
    app.put('/__emulator/setup', async (c) => {
      try {
        applySetup(await readBody(c.req.raw));
      } catch (error) {
        return json({ message: (error as Error).message }, 400);
      }
      return json({ embeddingEnabled: setup.embeddingEnabled, items: setup.items });
    });
    app.get('/__emulator/stats', () => json({ requests }));
  }

  return {
    app,
    setFaults(settings) {
      faults = parseFaultSettings(settings, METABASE_FAULT_OPERATIONS);
    },
    setup: applySetup,
    stats: () => ({ requests: { ...requests } }),
    get items() {
      return setup.items;
    },
  };
}
