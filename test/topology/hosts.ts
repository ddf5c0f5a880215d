import type { EngineName } from '../support/browsers/index.js';

/**
 * The named hosts of the production-shaped topology. `.test` is reserved (RFC 6761): no real
 * resolver answers it, so only the browsers' own mapping to 127.0.0.1 reaches nginx.
 */
export const HOSTS = {
  /** The integrator's app: the demo's host app, the Express and Fastify examples, the cross-site page. */
  app: 'app.test',
  /** The vendor: the emulator's API and dashboard host. */
  vendor: 'vendor.test',
  /** The integrator's API on a site of its own: the BFF CLI, cross-site from app.test. */
  embed: 'embed.test',
  /** The Next.js example at a public name (issue 21's "Done when"); another site than app.test. */
  next: 'app.example.test',
} as const;

export type HostName = (typeof HOSTS)[keyof typeof HOSTS];

/** Served by nginx itself with a certificate of another CA than the run's: no browser told to trust the run's CA loads it. */
export const UNTRUSTED_HOST = 'other-ca.test';

/**
 * What one browser engine reaches through nginx: a TLS port of its own on 127.0.0.1, where its
 * browser's `https://<host>` (port 443) arrives, and behind it a port of its own for the app of
 * each host. The engines' scenarios run side by side, each on its own lane, with apps of their
 * own at the same public names.
 */
export interface Lane {
  /** nginx's TLS port for this engine. */
  port: number;
  /** The port on 127.0.0.1 the app behind each host must listen on. */
  upstreams: Record<HostName, number>;
}

/** What global-setup.ts provides to every topology test file. */
export interface TopologyInfo {
  /** False when nginx or openssl is missing (allowed outside CI only: tools.ts). */
  available: boolean;
  /** The run's CA (PEM): what the browsers and Node's requests trust. */
  caPath: string;
  /** The certificate nginx presents for every named host (PEM, without the CA): WebKit's per-host pin. */
  serverCertificatePath: string;
  lanes: Record<EngineName, Lane>;
  /** The HTTP proxy WebKit reaches the named hosts through (`CONNECT <host>:443` to the webkit lane). */
  proxyPort: number;
}

/** `https://<host>`: the public origin, at the default port, as every browser of the topology sees it. */
export const publicOrigin = (host: HostName): string => `https://${host}`;
