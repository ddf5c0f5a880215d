import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { EngineName } from '../support/browsers/index.js';
import { freePort } from '../support/ports.js';
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
    project.provide('topology', { available: false, caPath: '', lanes: { chromium: none, firefox: none, webkit: none }, proxyPort: 0 });
    return async () => undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), 'embedded-dashboard-topology-'));
  const hosts: HostName[] = Object.values(HOSTS);
  const certificates = await makeCertificates(dir, hosts);
  // A host whose certificate comes from a CA no browser is told about: trusted by none but WebKit (acceptInsecureCerts).
  await mkdir(join(dir, 'other-ca'));
  const untrusted = { host: UNTRUSTED_HOST, certificates: await makeCertificates(join(dir, 'other-ca'), [UNTRUSTED_HOST], 'another CA') };
  const lanes = {} as Record<EngineName, Lane>;
  for (const engine of ENGINES) {
    const upstreams = {} as Record<HostName, number>;
    for (const host of hosts) upstreams[host] = await freePort();
    lanes[engine] = { port: await freePort(), upstreams };
  }
  const listeners = ENGINES.map((engine) => ({ port: lanes[engine].port, sites: hosts.map((host) => ({ host, upstreamPort: lanes[engine].upstreams[host] })) }));
  const running = await startNginx(nginx.path, join(dir, 'nginx'), listeners, certificates, untrusted);
  const proxy = await startConnectProxy([...hosts, UNTRUSTED_HOST], lanes.webkit.port);
  project.provide('topology', { available: true, caPath: certificates.caPath, lanes, proxyPort: proxy.port });
  return async () => {
    await proxy.close();
    await running.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
