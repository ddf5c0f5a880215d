import { createHash } from 'node:crypto';
import { createBffNodeListener } from '../http/node-listener.js';
import { createBffMetrics } from '../observability/prometheus.js';

/** Node (and Bun, Deno): node:crypto's hash, prom-client's metrics, the node:http listener. See `types.ts`. */
export const sha256 = (text: string, encoding: 'hex' | 'base64url'): string => createHash('sha256').update(text).digest(encoding);
export const defaultMetrics = () => createBffMetrics();
export { createBffMetrics, createBffNodeListener };
