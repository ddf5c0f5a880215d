import { sha256 } from '@noble/hashes/sha2.js';
import { createFetchTransport } from '../transport/fetch.js';
import type { NodeTransportOptions, NodeTransport } from '../transport/node.js';

/** Runtimes without Node's modules (see `node.ts`): SHA-256 in JavaScript (@noble/hashes), same digest. */
export const sha256Hex = (text: string): string => Array.from(sha256(new TextEncoder().encode(text)), (b) => b.toString(16).padStart(2, '0')).join('');
/** The transport a client makes for itself here: `fetch` (which cannot send a GET with a body). */
export const defaultTransport = (_maxSockets: number) => Object.assign(createFetchTransport(), { close() {} });
export const createNodeTransport = (_options?: NodeTransportOptions): NodeTransport => {
  throw new TypeError('createNodeTransport needs Node.js (node:http), which this runtime is not; use createFetchTransport');
};
