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

/** What global-setup.ts provides to every topology test file. */
export interface TopologyInfo {
  /** False when nginx or openssl is missing (allowed outside CI only: tools.ts). */
  available: boolean;
  /** nginx's TLS port on 127.0.0.1, where every named host's port 443 is mapped. */
  port: number;
  caPath: string;
  caSpkiSha256: string;
  /** The port on 127.0.0.1 the app behind each host must listen on. */
  upstreams: Record<string, number>;
  accessLogPath?: string;
}

/** `https://<host>`: the public origin, at the default port, as every browser of the topology sees it. */
export const publicOrigin = (host: HostName): string => `https://${host}`;
