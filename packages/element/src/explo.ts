import { FRAME_PROTOCOLS } from './embedded-dashboard.js';
import { exploProtocol } from './protocol/explo-protocol.js';

/**
 * Adds `protocol="explo"` (the vendor's documented iframe embed) to `<embedded-dashboard>`.
 * Import it once, next to the element:
 *
 * @example
 * import '@embedded-dashboard/element';
 * import '@embedded-dashboard/element/explo';
 */
FRAME_PROTOCOLS.explo = exploProtocol;

export { exploProtocol };
export type { FrameProtocol } from './protocol/frame-protocol.js';
