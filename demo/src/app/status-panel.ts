import type { EmbeddedDashboard } from '@embedded-dashboard/element';
import type { DemoVendorStatus } from '../../shared/api.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Mirrors the element's `state` attribute into the status pill. */
export function watchState(element: EmbeddedDashboard, onChange: (state: string) => void): void {
  const pill = byId<HTMLSpanElement>('element-state');
  let last = '';
  const show = () => {
    const state = element.getAttribute('state') ?? 'loading';
    if (state === last) return;
    last = state;
    pill.textContent = state;
    pill.dataset.state = state;
    onChange(state);
  };
  new MutationObserver(show).observe(element, { attributes: true, attributeFilter: ['state'] });
  show();
}

/** What the Token line says while the element is not `ready`, instead of a countdown. */
const NOT_READY: Record<string, string> = {
  refreshing: 'being replaced (see the event log)',
  unauthenticated: 'none: the session has ended',
  error: 'none: see the event log',
};

/**
 * Counts down to the token's `expiresAt` (as the BFF set it), corrected by nothing: display only.
 * While the element is refreshing or failed, says so instead: a countdown would be a lie then.
 */
export function tokenCountdown(): { issued(expiresAt: number | null): void; state(state: string): void } {
  const target = byId<HTMLElement>('token-expiry');
  let expiresAt: number | null | undefined;
  let notReady: string | undefined;
  const render = () => {
    if (notReady !== undefined) {
      target.textContent = notReady;
      return;
    }
    if (expiresAt === undefined) return;
    if (expiresAt === null) {
      target.textContent = 'issued, no expiry';
      return;
    }
    const seconds = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
    target.textContent = seconds > 0 ? `expires in ${seconds}s (the element rotates it first)` : 'expired, rotating';
  };
  setInterval(render, 1000);
  return {
    issued(next) {
      expiresAt = next;
      render();
    },
    state(state) {
      notReady = expiresAt === undefined ? undefined : NOT_READY[state];
      render();
    },
  };
}

/** Shows the vendor's call counters and the outage switch's state. */
export function showVendorStatus(status: DemoVendorStatus): void {
  const { getOrCreate, update, rotate } = status.stats.requests;
  byId<HTMLElement>('vendor-stats').textContent = `${getOrCreate} get-or-create · ${update} update · ${rotate} rotate${status.outage ? ' · OUTAGE' : ''}`;
  // What the element's report-timings beacons told the BFF (its histograms), not the page's own clock.
  const { loads, loadSeconds, loadTokenSeconds, renewals, renewalTokenSeconds } = status.timings;
  const ms = (seconds: number | null) => (seconds === null ? '–' : `${Math.round(seconds * 1000)} ms`);
  byId<HTMLElement>('load-times').textContent =
    loads + renewals === 0
      ? 'none reported yet'
      : `${loads} load${loads === 1 ? '' : 's'}: dashboard ${ms(loadSeconds)}, token ${ms(loadTokenSeconds)} · ${renewals} renewal${renewals === 1 ? '' : 's'}: token ${ms(renewalTokenSeconds)} (means)`;
  const outage = byId<HTMLButtonElement>('toggle-outage');
  outage.setAttribute('aria-pressed', String(status.outage));
  outage.textContent = status.outage ? 'End the vendor outage' : 'Simulate a vendor outage';
}
