import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { EngineName } from '../support/browsers/index.js';
import { nginxTool, opensslTool } from '../support/tools.js';
import { makeCertificates } from './certificates.js';
import { startConnectProxy } from './connect-proxy.js';
import { startNginx } from './nginx.js';
import { HOSTS, UNTRUSTED_HOST, type HostName, type Lane, type TopologyInfo } from './hosts.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's one nginx, CA and lanes (test/topology), or why it is not there. */
    topology: TopologyInfo;
  }
}

const ENGINES: readonly EngineName[] = ['chromium', 'firefox', 'webkit'];

/**
 * Once per run: a throwaway CA and a certificate for every named host, and one nginx terminating
 * TLS for all of them, on one port per browser engine (its lane), each in front of ports reserved
 * for that engine's apps; and the proxy WebKit reaches its lane through. Every topology test file
 * starts its apps on its lane's ports and reaches them through this nginx.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const nginx = nginxTool();
  const openssl = opensslTool();
  if (!nginx.available || !openssl.available) {
    const none: Lane = { port: 0, upstreams: { 'app.test': 0, 'vendor.test': 0, 'embed.test': 0, 'app.example.test': 0 } };
    project.provide('topology', {
      available: false,
      caPath: '',
      serverCertificatePath: '',
      lanes: { chromium: none, firefox: none, webkit: none },
      proxyPort: 0,
    });
    return async () => undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), 'embedded-dashboard-topology-'));
  const hosts: HostName[] = Object.values(HOSTS);
  const certificates = await makeCertificates(dir, hosts);
  // A host whose certificate comes from a CA no browser is told about: every engine must refuse it.
  await mkdir(join(dir, 'other-ca'));
  const untrusted = { host: UNTRUSTED_HOST, certificates: await makeCertificates(join(dir, 'other-ca'), [UNTRUSTED_HOST], 'another CA') };
  const lanes = {} as Record<EngineName, Lane>;
  const taken = new Set<number>();
  for (const engine of ENGINES) {
    const upstreams = {} as Record<HostName, number>;
    for (const host of hosts) upstreams[host] = await reservablePort(taken);
    lanes[engine] = { port: await reservablePort(taken), upstreams };
  }
  const listeners = ENGINES.map((engine) => ({
    port: lanes[engine].port,
    sites: hosts.map((host) => ({ host, upstreamPort: lanes[engine].upstreams[host] })),
  }));
  const running = await startNginx(nginx.path, join(dir, 'nginx'), listeners, certificates, untrusted);
  const proxy = await startConnectProxy([...hosts, UNTRUSTED_HOST], lanes.webkit.port);
  project.provide('topology', { available: true, caPath: certificates.caPath, serverCertificatePath: certificates.serverPath, lanes, proxyPort: proxy.port });
  return async () => {
    await proxy.close();
    await running.stop();
    await rm(dir, { recursive: true, force: true });
  };
}

/**
 * A port free now on 127.0.0.1 below the kernel's ephemeral range. The lanes' app ports are
 * chosen here and bound minutes later, by each test file: a port from the ephemeral range (what
 * `listen(0)` gives) may by then be the source port of some connection (nginx's own to its
 * upstreams, any program's on the machine), and the app's listen fails with EADDRINUSE (seen:
 * the BFF CLI on the WebKit lane's embed.test port). Below the range only an explicit bind takes it.
 */
async function reservablePort(taken: Set<number>): Promise<number> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '32768 60999');
  const ephemeralStart = Number(range.trim().split(/\s+/)[0]) || 32768;
  const low = Math.min(10_000, ephemeralStart - 1_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (ephemeralStart - low));
    if (taken.has(port) || !(await canListen(port))) continue;
    taken.add(port);
    return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${low} and ${ephemeralStart} after 100 tries`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
