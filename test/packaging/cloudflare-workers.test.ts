/**
 * examples/cloudflare-workers as an integrator has it: copied into the consumer project, where
 * @embedded-dashboard/bff comes from its packed tarball; type-checked against the installed
 * declarations and @cloudflare/workers-types; built by wrangler exactly as `wrangler deploy`
 * would upload it (`--dry-run --outdir`: its own esbuild, conditions and checks, no account);
 * and that bundle run in workerd (miniflare, no network beyond loopback) with the Durable Object
 * binding and migration of its wrangler.jsonc, against the installed emulator CLI.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workerdTool } from '../support/tools.js';
import { copyIntoConsumer, REPOSITORY_ROOT, runOk, startServer, type ServerProcess } from './consumer.js';

const consumerDir = inject('consumerDir');
const workerd = workerdTool();
const SESSION_SECRET = 'workers-example-session-secret-0123456789abcdef';

/** wrangler.jsonc without its comments (whole-line `//` comments, as the example writes them). */
const readJsonc = async (path: string) => JSON.parse((await readFile(path, 'utf8')).replace(/^\s*\/\/.*$/gm, '')) as Record<string, unknown>;

describe.skipIf(!workerd.available)('examples/cloudflare-workers, installed from the packed tarballs', () => {
  let app: string;
  let outDir: string;
  let emulator: ServerProcess | undefined;
  let mf: Miniflare | undefined;
  let url: string;

  beforeAll(async () => {
    app = await copyIntoConsumer(consumerDir, 'examples/cloudflare-workers', 'examples/cloudflare-workers');
    outDir = await mkdtemp(join(tmpdir(), 'workers-example-'));
    emulator = await startServer(join(consumerDir, 'node_modules/.bin/embedded-dashboard-emulator'), ['--port', '0', '--rate-limit', '0'], {
      cwd: consumerDir,
      readyText: 'emulator listening on ',
    });
  });
  afterAll(async () => {
    await mf?.dispose();
    await emulator?.stop();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('type-checks against the installed declarations and the Workers types', async () => {
    await runOk(join(consumerDir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app });
  });

  it('is built by wrangler from the installed package, with no Node built-in and no nodejs_compat', async () => {
    const { stdout } = await runOk(join(REPOSITORY_ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', outDir], {
      cwd: app,
      env: { WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: 'true', WRANGLER_LOG_PATH: join(outDir, 'logs') },
      timeoutMs: 120_000,
    });
    expect(stdout).toMatch(/--dry-run: exiting now/);
    // wrangler's bundle names each bundled file in a comment (`// ../node_modules/<package>/…`).
    const bundled = [...(await readFile(join(outDir, 'worker.js'), 'utf8')).matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1]!);
    expect(bundled).toContainEqual(expect.stringMatching(/@embedded-dashboard\/bff\/dist\/platform\/web\.js$/));
    expect(bundled.filter((file) => /node_modules\/(prom-client|@hono\/node-server|ioredis)\/|platform\/node\.js$/.test(file))).toEqual([]);
  });

  it('serves tokens and rotation in workerd with the Durable Object store its wrangler.jsonc declares', async () => {
    const config = await readJsonc(join(app, 'wrangler.jsonc'));
    const binding = (config.durable_objects as { bindings: { name: string; class_name: string }[] }).bindings[0]!;
    expect((config.migrations as { new_sqlite_classes: string[] }[])[0]!.new_sqlite_classes).toEqual([binding.class_name]);
    mf = new Miniflare({
      modules: [{ type: 'ESModule', path: 'worker.js', contents: await readFile(join(outDir, 'worker.js'), 'utf8') }],
      compatibilityDate: config.compatibility_date as string,
      durableObjects: { [binding.name]: { className: binding.class_name, useSQLite: true } },
      // The example's variables, with the emulator as the vendor; the secrets `wrangler secret put` would hold.
      bindings: {
        ...(config.vars as Record<string, string>),
        EMBED_UPSTREAM_URL: emulator!.url,
        EMBED_API_TOKEN: 'dev-customer-key',
        EMBED_SESSION_SECRET: SESSION_SECRET,
      },
      cf: false,
      host: '127.0.0.1',
      port: 0,
      handleRuntimeStdio: () => undefined,
    });
    url = (await mf.ready).origin;
    const session = await new SignJWT({ org_id: 'acme', org_name: 'Acme Corp', embed_properties: { region: 'EMEA' } })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SESSION_SECRET));
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `__Host-session=${session}`, ...headers },
        body: JSON.stringify(body),
      });

    const first = await post('/embed/token', {});
    expect(first.status).toBe(200);
    const { token } = (await first.json()) as { token: string };
    const rotated = await post('/embed/token/rotate', { token });
    expect(rotated.status).toBe(200);
    expect(((await rotated.json()) as { token: string }).token).not.toBe(token);
    // The allowed origin of the example's vars gets CORS; any other origin is refused.
    const allowed = await post('/embed/token', {}, { origin: 'https://app.example.com', 'sec-fetch-site': 'cross-site' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await post('/embed/token', {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post('/embed/token', {}, { cookie: '' })).status).toBe(401);
  });
});
