/**
 * The vendor's documented iframe embed as a frame protocol. `<embedded-dashboard>` knows it by
 * itself (`protocol="explo"` works with `import '@embedded-dashboard/element'` or the standalone
 * script alone); this entry stays for code that imports it by name, and for earlier releases'
 * `import '@embedded-dashboard/element/explo'`, which now adds nothing.
 */
export { exploProtocol } from './explo/explo-protocol.js';
export { exploJwtProtocol } from './explo/explo-jwt-protocol.js';
export type { FrameProtocol } from './protocol/frame-protocol.js';
