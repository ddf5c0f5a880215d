import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import type { DashboardVariables, SrcValues } from '@embedded-dashboard/protocol';
import type { FrameProtocol, FrameSession } from '../protocol/frame-protocol.js';
import type { TokenController } from '../token/token-controller.js';
import type { ViewModel } from '../view/shadow-view.js';

/*
 * The frame controller's contract with its element (`frame-controller.ts`): what it reads from
 * the element, the options it is shown with, and what it hands the view.
 */

/** What the controller reads from, and reports to, the element that owns it. */
export interface FrameHost extends ReactiveControllerHost, EventTarget {
  readonly dashboard?: string | undefined;
  /** A single chart of the dashboard, when the element shows one: its height is remembered apart. */
  readonly chart?: string | undefined;
  readonly srcTemplate?: string | undefined;
  readonly environment?: string | undefined;
  readonly protocol: string;
  readonly noAutoResize: boolean;
  /** The shadow root, holding the element's own frames (`#f0`, `#f1`). */
  readonly renderRoot: ParentNode;
  /** Finds the frame the server rendered into the element (a light DOM child). */
  querySelector<E extends Element>(selectors: string): E | null;
  /** Its `sandbox` attribute, which an adopted frame must have too; a vendor's own attributes. */
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  /** The frames' `allow`, which an adopted frame must have too (unset: `DEFAULT_ALLOW`). */
  readonly allow?: string | undefined;
}

/** The documented iframe options, checked (the element's `locale-code` and `refresh-minutes`). */
export type FrameOptions = Pick<SrcValues, 'localeCode' | 'refreshMinutes'>;

/** What the view shows of the frames. */
export type FramesView = Pick<ViewModel, 'loaded' | 'live' | 'adopted' | 'srcs' | 'cur' | 'height'>;

/** What the element asks of its frames controller (`FrameController`, or `ChannelFrames`). */
export interface Frames extends ReactiveController {
  loaded: boolean;
  readonly vars: DashboardVariables;
  session?: FrameSession | undefined;
  show(adapter: FrameProtocol, options?: FrameOptions): void;
  clear(): void;
  view(): FramesView;
  focused(): Element | null;
  sendToken(): void;
  sendVariables(): void;
  setVariables(variables: DashboardVariables): void;
}

/** A frames controller class, as an entry registers it. */
export interface FramesClass {
  new (host: FrameHost, tokens: TokenController): Frames;
  /** Replaced by a full controller when one is registered too. */
  readonly lean?: boolean;
}
