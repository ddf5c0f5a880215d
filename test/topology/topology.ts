/**
 * What the topology test files share: the browser that reaches the named hosts through the run's
 * nginx and trusts the run's CA, the emulator CLI as the vendor at https://vendor.test, a small
 * page server for pages of the test's own, and HTTPS requests from Node through nginx.
 *
 * How each browser reaches nginx and trusts the CA, by its own mechanism:
 * - Chromium: `--host-resolver-rules="MAP app.test:443 127.0.0.1:<nginx port>, …"` (the port
 *   too, so pages are at `https://app.test` with the default port, as in production) and
 *   `--ignore-certificate-errors-spki-list=<base64 SHA-256 of the CA's SubjectPublicKeyInfo>`:
 *   Chromium accepts a chain that contains a certificate with that key (nginx sends the CA after
 *   the server certificate), only for this launch (playwright gives it a fresh profile) and not
 *   for any other CA; a server certificate from another CA still fails (tested). Not an NSS
 *   database: that would need certutil and a profile directory of our own for one flag's worth.
 */
import { request as httpsRequest } from 'node:https';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium as playwrightChromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../support/chromium.js';
import { startServer, type ServerProcess } from '../packaging/consumer.js';
import { HOSTS, type HostName, type TopologyInfo } from './hosts.js';

export { HOSTS, publicOrigin, type HostName, type TopologyInfo } from './hosts.js';

/** Chromium's flags for the topology: every named host's port 443 is nginx, and the run's CA is trusted. */
export function chromiumTopologyArgs(topology: TopologyInfo, options: { thirdPartyCookies?: 'block'; trustCa?: boolean } = {}): string[] {
  const rules = Object.values(HOSTS).map((host) => `MAP ${host}:443 127.0.0.1:${topology.port}`);
  return [
    ...CHROMIUM_ARGS,
    `--host-resolver-rules=${rules.join(', ')}`,
    ...(options.trustCa === false ? [] : [`--ignore-certificate-errors-spki-list=${topology.caSpkiSha256}`]),
    // Third-party cookies blocked, as Chrome does with the setting on (and in incognito) and as
    // Safari's WebKit ships: a cookie of embed.test is not sent from a page of app.test.
    ...(options.thirdPartyCookies === 'block' ? ['--test-third-party-cookie-phaseout'] : []),
  ];
}

export const launchTopologyChromium = (executablePath: string, topology: TopologyInfo, options: Parameters<typeof chromiumTopologyArgs>[1] = {}): Promise<Browser> =>
  playwrightChromium.launch({ executablePath, args: chromiumTopologyArgs(topology, options), headless: true, timeout: 30_000 });

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTPS request from Node to `https://<host><path>` through the run's nginx, trusting only the
 * run's CA: what a client without Fetch Metadata (curl, an old browser) sends.
 */
export function httpsThroughProxy(
  topology: TopologyInfo,
  host: HostName,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: topology.port, servername: host, path, method: init.method ?? 'GET', headers: { host, ...init.headers }, ca: readFileSync(topology.caPath), timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`https://${host}${path} did not answer within 10 s`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * The emulator CLI from the consumer project as the vendor behind https://vendor.test: admin
 * routes on (to expire tokens and inject an outage), dashboards re-read every second, framing
 * allowed from `embedOrigins`.
 */
export function startVendor(consumerDir: string, topology: TopologyInfo, embedOrigins: readonly string[]): Promise<ServerProcess> {
  const args = ['--port', String(topology.upstreams[HOSTS.vendor]), '--admin', '--dashboard-refresh', '1', '--rate-limit', '0'];
  for (const origin of embedOrigins) args.push('--embed-origin', origin);
  return startServer(join(consumerDir, 'node_modules/.bin/embedded-dashboard-emulator'), args, { cwd: consumerDir, readyText: 'emulator listening on ' });
}

/** A plain HTTP server on 127.0.0.1:`port` answering with `handler` (pages of the test's own, behind nginx). */
export function startPageServer(port: number, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}
