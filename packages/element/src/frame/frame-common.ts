import { MAX_DASHBOARD_HEIGHT, MIN_DASHBOARD_HEIGHT } from '@embedded-dashboard/protocol';
import { emit } from '../events.js';
import type { FrameHost } from './frame-host.js';
import { rememberHeight } from './height-memory.js';

/** A deep-frozen copy: state handed out is never live (frameworks see a new object per change). */
export const frozen = <T>(value: T): T => {
  if (typeof value === 'object' && value) for (const item of Object.values(value)) frozen(item);
  return Object.freeze(value);
};

/** Which dashboard (and chart) a remembered height is for; a chart standing alone (Metabase's question) is `\n<chart>`. */
export const memoryKey = (host: FrameHost): string => (host.chart ? `${host.dashboard ?? ''}\n${host.chart}` : `${host.dashboard}`);

/**
 * A height the dashboard reported, for frames at `current`: ignored outside the bounds, else
 * rounded up and remembered for the page session; when it differs, the element renders again and
 * says `dashboard-resize`, and the new height is returned.
 */
export function applyHeight(host: FrameHost, current: number | undefined, height: number): number | undefined {
  if (height < MIN_DASHBOARD_HEIGHT || height > MAX_DASHBOARD_HEIGHT) return undefined;
  height = Math.ceil(height);
  rememberHeight(memoryKey(host), height);
  if (height === current) return undefined;
  host.requestUpdate();
  emit(host, 'dashboard-resize', { height });
  return height;
}
