import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../support/ports.js';
import { nginxTool, opensslTool } from '../support/tools.js';
import { makeCertificates } from './certificates.js';
import { startNginx } from './nginx.js';
import { HOSTS, type TopologyInfo } from './hosts.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's one nginx, CA and upstream ports (test/topology), or why it is not there. */
    topology: TopologyInfo;
  }
}

/**
 * Once per run: a throwaway CA and a certificate for every named host, a port reserved for the
 * app behind each host, and one nginx terminating TLS for all of them. Every topology test file
 * starts its apps on those ports and reaches them through this nginx.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const nginx = nginxTool();
  const openssl = opensslTool();
  if (!nginx.available || !openssl.available) {
    project.provide('topology', { available: false, port: 0, caPath: '', caSpkiSha256: '', upstreams: {} });
    return async () => undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), 'embedded-dashboard-topology-'));
  const hosts = Object.values(HOSTS);
  const certificates = await makeCertificates(dir, hosts);
  const upstreams: Record<string, number> = {};
  for (const host of hosts) upstreams[host] = await freePort();
  const port = await freePort();
  const running = await startNginx(nginx.path, join(dir, 'nginx'), port, hosts.map((host) => ({ host, upstreamPort: upstreams[host]! })), certificates);
  project.provide('topology', { available: true, port, caPath: certificates.caPath, caSpkiSha256: certificates.caSpkiSha256, upstreams, accessLogPath: join(dir, 'nginx', 'access.log') });
  return async () => {
    await running.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
