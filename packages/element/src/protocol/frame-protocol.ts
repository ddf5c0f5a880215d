import type { DashboardMessage, DashboardVariables, SrcValues } from '@embedded-dashboard/protocol';

/**
 * How the element talks to one vendor's dashboard frame. The element keeps every guarantee
 * (source and origin checks, exact target origin, state, events, rotation); an adapter only
 * translates: the frame URL, and messages in both directions. A new vendor is one more adapter.
 */
export interface FrameProtocol {
  /**
   * The token is part of the frame URL, so a new token needs a new frame: the element loads it
   * hidden beside the visible one and swaps them when it reports loaded. Otherwise the token is
   * posted to the running frame.
   */
  readonly swap: boolean;
  /**
   * Tokens are for one dashboard (the vendor's embed tokens): token requests name the element's
   * dashboard, and are shared (in the page and across tabs) only with elements of that dashboard.
   */
  readonly perDashboard?: boolean;
  /** The frame URL, or `undefined` while it needs a token that has not arrived. Throws for a bad template. */
  src(template: string | undefined, values: SrcValues, variables: DashboardVariables): URL | undefined;
  /**
   * The names of the frame events `parse` handles (the lifecycle events): any other name from the
   * verified frame is the dashboard's own event (`dashboard-custom-event`).
   */
  readonly lifecycle: readonly string[];
  /** Untrusted `MessageEvent.data` as an event of our own protocol (ARCHITECTURE §6), or `undefined`. */
  parse(data: unknown): DashboardMessage | undefined;
  /** The message handing a token to the running frame; absent when the token travels in the URL. */
  token?(token: string): object;
  /** The message setting variables in the running frame. */
  variables(variables: DashboardVariables): object;
}
