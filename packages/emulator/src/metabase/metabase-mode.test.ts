import { describe, expect, it } from 'vitest';
import { parseArgs } from '../cli/args.js';
import { createMetabaseEmulator } from './app.js';
import { DEFAULT_METABASE_SECRET } from './options.js';

// What Metabase documents is in test/metabase/conformance.test.ts; these are the emulator's own
// parts: its options, admin routes and CLI on bad input.

describe('the Metabase mode: options, admin, CLI', () => {
  it('refuses bad options with a TypeError naming the option, never the secret', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ secretKey: 'not-hex-secret-value' }, /secretKey/],
      [{ embeddingEnabled: 'yes' }, /embeddingEnabled/],
      [{ frameAncestors: [] }, /frameAncestors/],
      [{ frameAncestors: ["'self'; script-src *"] }, /frameAncestors/],
      [{ items: {} }, /items/],
      [{ items: [{ kind: 'dashboard', id: 1, title: 'x', parameters: { customer_id: 'hidden' } }] }, /parameters\.customer_id/],
      [{ items: [{ kind: 'dashboard', id: 1, title: 'x', parameters: JSON.parse('{"__proto__":"locked"}') as object }] }, /parameters/],
      [{ items: [{ kind: 'question', id: 1, title: 'x', parameters: {}, cards: [] }] }, /cards/],
      [
        {
          items: [
            { kind: 'dashboard', id: 1, title: 'x', parameters: {} },
            { kind: 'dashboard', id: 1, title: 'y', parameters: {} },
          ],
        },
        /twice/,
      ],
      [{ items: [{ kind: 'dashboard', id: 0, title: 'x', parameters: {} }] }, /id/],
      [{ faults: { dropRate: 2 } }, /dropRate/],
    ];
    for (const [options, message] of cases) {
      expect(() => createMetabaseEmulator(options as never), JSON.stringify(options)).toThrow(message);
      try {
        createMetabaseEmulator(options);
      } catch (error) {
        expect((error as Error).message).not.toContain('not-hex-secret-value');
      }
    }
  });

  it('has no admin routes unless asked, and its admin routes refuse what is not JSON', async () => {
    const plain = createMetabaseEmulator();
    expect((await plain.app.request('/__emulator/stats')).status).toBe(404);
    const admin = createMetabaseEmulator({ admin: true });
    const put = (path: string, body: string, type = 'application/json') => admin.app.request(path, { method: 'PUT', headers: { 'content-type': type }, body });
    expect((await put('/__emulator/setup', '{', 'application/json')).status).toBe(400);
    expect((await put('/__emulator/setup', '{}', 'text/plain')).status).toBe(400);
    expect((await put('/__emulator/setup', JSON.stringify({ items: Array.from({ length: 101 }, () => ({})) }))).status).toBe(400);
    expect((await put('/__emulator/setup', 'x'.repeat(300_000))).status).toBe(400);
    expect((await put('/__emulator/faults', JSON.stringify({ operations: ['guestToken'] }))).status).toBe(400);
    expect((await put('/__emulator/faults', JSON.stringify({ operations: ['embedQuery'], serverErrorRate: 1 }))).status).toBe(200);
    expect(await (await admin.app.request('/__emulator/stats')).json()).toEqual({ requests: { embedPage: 0, embedItem: 0, embedQuery: 0 } });
  });

  it('parses --vendor metabase and its flags, one line per problem, never echoing the secret', () => {
    const ok = parseArgs([
      '--vendor',
      'metabase',
      '--port',
      '0',
      '--metabase-secret',
      'ab'.repeat(32),
      '--metabase-item',
      'dashboard:7:customer_id=locked,region=enabled',
      '--metabase-item',
      'question:8',
      '--embed-origin',
      'http://localhost:*',
      '--admin',
    ]);
    expect(ok.problems).toEqual([]);
    expect(ok.command).toMatchObject({
      kind: 'start-metabase',
      options: {
        port: 0,
        admin: true,
        secretKey: 'ab'.repeat(32),
        frameAncestors: ['http://localhost:*'],
        items: [
          { kind: 'dashboard', id: 7, parameters: { customer_id: 'locked', region: 'enabled' } },
          { kind: 'question', id: 8, parameters: {} },
        ],
      },
    });
    expect(parseArgs(['--vendor', 'metabase']).command).toEqual({ kind: 'start-metabase', options: { admin: false } });

    const bad = parseArgs([
      '--vendor',
      'metabase',
      '--metabase-secret',
      'secret-that-is-wrong',
      '--metabase-item',
      'card:1',
      '--metabase-item',
      'dashboard:1:customer_id=open',
      '--api-key',
      'k:Customer',
      '--guest-secret',
      's',
    ]);
    expect(bad.command).toBeUndefined();
    expect(bad.problems).toEqual([
      '--api-key is an Explo option; not with --vendor metabase',
      '--guest-secret is a --vendor superset option',
      '--metabase-secret must be 64 hexadecimal characters',
      '--metabase-item must be KIND:ID[:SLUG=KIND,...], got "card:1"',
      '--metabase-item dashboard:1: each parameter must be SLUG=locked|enabled|disabled',
    ]);
    expect(bad.problems.join('\n')).not.toContain('secret-that-is-wrong');
    expect(parseArgs(['--vendor', 'metabase', '--metabase-item', 'dashboard:1:color=locked']).problems[0]).toMatch(/^--metabase-item: .*sample columns/);
    expect(parseArgs(['--metabase-secret', DEFAULT_METABASE_SECRET]).problems).toEqual(['--metabase-secret is a --vendor metabase option']);
    expect(parseArgs(['--vendor', 'looker']).problems).toEqual(['--vendor must be explo, superset or metabase']);
  });
});
