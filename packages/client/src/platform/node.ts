import { createHash } from 'node:crypto';
import { createNodeTransport } from '../transport/node.js';

/**
 * What differs between runtimes (`#client-platform`, package.json `imports`): this module under
 * the `node`, `bun` and `deno` conditions, `web.ts` elsewhere (Workers, the Next.js edge runtime).
 */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');
/** The transport a client makes for itself: node:http(s), which can send the GET with a body. */
export const defaultTransport = (maxSockets: number) => createNodeTransport({ maxSockets });
export { createNodeTransport };
