import type { createBffNodeListener } from '../http/node-listener.js';
import type { BffMetrics, BffMetricsOptions } from '../observability/metrics.js';

/**
 * What differs between runtimes, and nothing else. `#bff-platform` (package.json `imports`) is
 * `platform/node.ts` under the `node`, `bun` and `deno` conditions and `platform/web.ts`
 * elsewhere (Cloudflare Workers, the Next.js edge runtime, any bundler for the web), so no module
 * the app imports names `node:` or prom-client on those runtimes.
 */
export interface Platform {
  /** SHA-256 of the UTF-8 text, synchronously (Web Crypto's digest is asynchronous; the hot path is not). */
  sha256(text: string, encoding: 'hex' | 'base64url'): string;
  /** The metrics `createBffApp` keeps when given none: prom-client on Node, none elsewhere. */
  defaultMetrics(): BffMetrics;
  createBffMetrics(options?: BffMetricsOptions): BffMetrics;
  createBffNodeListener: typeof createBffNodeListener;
}
