import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BFF_LISTENING_PREFIX } from '@embedded-dashboard/protocol';
import { startMetabaseEmulator, type RunningMetabaseEmulator } from '@embedded-dashboard/emulator';
import { assertFreshBuild } from '../../../../test/support/fresh-build.js';
import { startNodeProcess } from '../../../../test/support/processes.js';
import { session, SESSION_SECRET } from '../../test/support/fixtures.js';

const bin = join(fileURLToPath(new URL('../../', import.meta.url)), 'bin/embedded-dashboard-bff.js');
const cleanEnv = { PATH: process.env.PATH, NODE_OPTIONS: '' };
const SECRET = 'c0ffee'.repeat(10) + 'beef';

let mb: RunningMetabaseEmulator;
beforeAll(async () => {
  assertFreshBuild('bff');
  mb = await startMetabaseEmulator({ port: 0, secretKey: SECRET });
});
afterAll(() => mb?.close());

describe('embedded-dashboard-bff CLI with EMBED_VENDOR=metabase', () => {
  it('exits 1 with one line per problem, never the secret; from a --config file it signs tokens the Metabase emulator accepts', async () => {
    const bad = spawnSync(process.execPath, [bin], {
      env: {
        ...cleanEnv,
        EMBED_VENDOR: 'metabase',
        EMBED_UPSTREAM_URL: mb.url,
        EMBED_SESSION_SECRET: SESSION_SECRET,
        EMBED_METABASE_SECRET: 'LEAKCHECK-not-a-metabase-secret',
        EMBED_METABASE_PARAMS: '{"customer_id": "{org_id}"',
        EMBED_PORT: '0',
      },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([
      'config: EMBED_METABASE_SECRET must be 64 hexadecimal characters, as Metabase generates it (value not shown)',
      'config: EMBED_METABASE_PARAMS must be a JSON object from parameter slug to a template over session claims, e.g. {"customer_id": "{org_id}"}',
      'config: EMBED_DASHBOARDS (and/or EMBED_METABASE_QUESTIONS) is required with EMBED_VENDOR=metabase: the ids of the items this BFF embeds',
    ]);
    expect(bad.stdout + bad.stderr).not.toContain('LEAKCHECK');

    const dir = mkdtempSync(join(tmpdir(), 'bff-cli-metabase-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(
        file,
        JSON.stringify({
          EMBED_VENDOR: 'metabase',
          EMBED_UPSTREAM_URL: mb.url,
          EMBED_METABASE_PARAMS: '{"customer_id": "{org_id}"}',
          EMBED_DASHBOARDS: '1',
          EMBED_TOKEN_TTL: 120,
        }),
      );
      const proc = await startNodeProcess(bin, ['--config', file], {
        env: { ...cleanEnv, EMBED_SESSION_SECRET: SESSION_SECRET, EMBED_PORT: '0', EMBED_METABASE_SECRET: SECRET },
        readyPrefix: BFF_LISTENING_PREFIX,
      });
      try {
        const res = await fetch(`${proc.url}/embed/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await session({ org_id: 'initech' })}`, origin: proc.url },
          body: JSON.stringify({ dashboard: '1' }),
        });
        expect(res.status).toBe(200);
        const { token } = (await res.json()) as { token: string };
        const rows = (await (await fetch(`${mb.url}/api/embed/dashboard/${token}/dashcard/1/card/1`)).json()) as { data: { rows: unknown[][] } };
        expect(new Set(rows.data.rows.map((row) => row[0]))).toEqual(new Set(['initech']));
        expect(proc.output.join('\n')).not.toContain(SECRET);
      } finally {
        await proc.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
