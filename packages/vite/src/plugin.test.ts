import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedDashboard, SRC_TEMPLATE_ENV } from './index.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'embedded-dashboard-vite-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title><script type="module" src="/main.js"></script>');
  await writeFile(join(root, 'main.js'), `export const srcTemplate = import.meta.env.${SRC_TEMPLATE_ENV};\nconsole.log(srcTemplate);\n`);
});
afterAll(() => rm(root, { recursive: true, force: true }));

const startDev = async (plugin = embeddedDashboard()) => {
  const server = await createServer({ root, configFile: false, logLevel: 'silent', plugins: [plugin], server: { host: '127.0.0.1', port: 0, ws: false } });
  await server.listen();
  return server;
};
const baseOf = (server: ViteDevServer) => server.resolvedUrls!.local[0]!.replace(/\/$/, '');

describe('embeddedDashboard() in vite dev', () => {
  let server: ViteDevServer;
  let base: string;
  beforeAll(async () => {
    server = await startDev();
    base = baseOf(server);
  });
  afterAll(() => server?.close());

  const token = (cookie?: string) =>
    fetch(`${base}/embed/token`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base, ...(cookie ? { cookie } : {}) }, body: '{}' });

  it("signs in as a sample customer and the BFF on the dev server hands out that customer's token", async () => {
    const login = await fetch(`${base}/__embedded-dashboard/login?customer=globex&next=/dashboards`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe('/dashboards');
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^embedded_dashboard_dev_session=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Lax/);
    const response = await token(cookie.split(';')[0]);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { token: string };
    // The in-process emulator agrees: that is globex's token.
    const srcTemplate = String((server.config.define ?? {})[`import.meta.env.${SRC_TEMPLATE_ENV}`]);
    const emulatorUrl = JSON.parse(srcTemplate).replace('/iframe/{dashboard}', '');
    const vendor = await fetch(`${emulatorUrl}/api/user`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: 'Token dev-customer-key' },
      body: JSON.stringify({ name: 'Globex', user_group_id: 'globex', properties: { region: 'Americas', plan: 'Growth' } }),
    });
    expect(((await vendor.json()) as { user_group: { token: string } }).user_group.token).toBe(body.token);
  });

  it('refuses a token request without a session (401) and an unknown customer (400, listing the known ones)', async () => {
    expect((await token()).status).toBe(401);
    const unknown = await fetch(`${base}/__embedded-dashboard/login?customer=nobody`, { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toBe('dev sign-in: ?customer= must be one of acme, globex, initech\n');
  });

  it("behind a TLS proxy at a public name: a same-origin request is served on the browser's Sec-Fetch-Site, a cross-site one is 403", async () => {
    // What a browser at https://dev.example.test sends through a proxy to this dev server at http://127.0.0.1:PORT.
    const login = await fetch(`${base}/__embedded-dashboard/login?customer=acme`, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const ask = (site: string) =>
      fetch(`${base}/embed/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://dev.example.test', 'sec-fetch-site': site, cookie },
        body: '{}',
      });
    expect((await ask('same-origin')).status).toBe(200);
    const refused = await ask('cross-site');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  it('redirects only to paths on the dev server after sign-in', async () => {
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const login = await fetch(`${base}/__embedded-dashboard/login?customer=acme&next=${encodeURIComponent(next)}`, { redirect: 'manual' });
      expect(login.headers.get('location'), next).toBe('/');
    }
  });

  it("leaves everything else to Vite, and hands the page the emulator's dashboard URL", async () => {
    expect(await (await fetch(`${base}/`)).text()).toContain('<script type="module" src="/main.js">');
    const module = await (await fetch(`${base}/main.js`)).text();
    expect(module).toMatch(/"VITE_EMBEDDED_DASHBOARD_SRC_TEMPLATE": "http:\/\/127\.0\.0\.1:\d+\/iframe\/\{dashboard\}"/);
    // Other paths under the sign-in's prefix are Vite's too (its SPA fallback answers index.html).
    expect(await (await fetch(`${base}/__embedded-dashboard/other`)).text()).toContain('<title>app</title>');
  });
});

describe('embeddedDashboard() options', () => {
  it('refuses a real upstream together with the dev sign-in', () => {
    expect(() =>
      embeddedDashboard({ upstream: 'https://vendor.example', apiToken: 'secret-token', devCustomers: [{ id: 'a', name: 'A', properties: {} }] }),
    ).toThrow(/devCustomers \(the dev sign-in\) cannot be used with a real upstream/);
  });

  it('needs an API token with a real upstream, and a session when there is no dev sign-in', () => {
    expect(() => embeddedDashboard({ upstream: 'https://vendor.example' })).toThrow(/apiToken is required with upstream/);
    expect(() => embeddedDashboard({ upstream: 'https://vendor.example', apiToken: 'secret-token' })).toThrow(/session is required/);
    expect(() => embeddedDashboard({ devCustomers: false })).toThrow(/session is required/);
    expect(() => embeddedDashboard({ upstream: 'ftp://vendor.example', apiToken: 'x' })).toThrow(/upstream must be an http\(s\) URL/);
    expect(() => embeddedDashboard({ session: { jwksUrl: 'https://idp.example/jwks' } })).toThrow(/signs sessions with session.secret/);
  });

  it('stops its emulator when the dev server closes', async () => {
    const server = await startDev();
    const emulatorUrl = JSON.parse(String(server.config.define![`import.meta.env.${SRC_TEMPLATE_ENV}`])).replace('/iframe/{dashboard}', '');
    expect((await fetch(`${emulatorUrl}/api/user`, { method: 'PUT' })).status).toBe(401);
    await server.close();
    await expect(fetch(`${emulatorUrl}/api/user`)).rejects.toThrow();
  });
});

describe('embeddedDashboard() in vite build', () => {
  it('is not applied: the output has no emulator URL, no dev sign-in and no BFF', async () => {
    const outDir = join(root, 'dist');
    await build({ root, configFile: false, logLevel: 'silent', plugins: [embeddedDashboard()], build: { outDir } });
    const assets = await readdir(join(outDir, 'assets'));
    const code = (await Promise.all(assets.map((file) => readFile(join(outDir, 'assets', file), 'utf8')))).join('\n');
    expect(code).not.toMatch(/127\.0\.0\.1|__embedded-dashboard|iframe\/\{dashboard\}/);
    expect(embeddedDashboard().apply).toBe('serve');
  });
});
