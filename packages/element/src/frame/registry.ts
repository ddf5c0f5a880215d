import type { DashboardVariables } from '@embedded-dashboard/protocol';
import type { FrameProtocol } from '../protocol/frame-protocol.js';
import type { FramesClass } from './frame-host.js';

/**
 * Dashboard variables (the `variables` attribute, `dashboard-variable-change`), for the protocols
 * that have them (`message`, `explo`, `explo-jwt`): registered by the entry that brings those, so
 * an entry without them ships none of their checks. Unregistered, `variables` is not read.
 */
export interface VariablesSupport {
  /** The attribute or property as checked variables (a copy); throws an `Error` naming the problem. */
  parse(value: string | DashboardVariables | undefined | null): DashboardVariables;
  /** `current` with `name` set to what the dashboard reported, or `undefined` when the whole would be over a limit. */
  update(current: DashboardVariables, name: string, value: unknown): DashboardVariables | undefined;
}

/**
 * What the entries in the page registered (`defineEmbeddedDashboard`): their protocols, the
 * variables, and the frames controller (the main entry's `FrameController`; an entry whose
 * protocols all open a channel, `ChannelFrames`, which a full one replaces).
 */
export interface FrameRegistry {
  readonly protocols: Record<string, FrameProtocol>;
  variables?: VariablesSupport;
  frames?: FramesClass;
}

/*
 * One registry for the page, under a global symbol: every copy of the element (this module, a
 * standalone script of another entry, a second bundle) reads and writes the same one, so an entry
 * loaded later reaches the element another copy defined without the copies knowing each other.
 */
const KEY = Symbol.for('embedded-dashboard.registry');

/** The page's registry (see `FrameRegistry`). */
export const FRAME_FEATURES: FrameRegistry = ((globalThis as { [KEY]?: FrameRegistry })[KEY] ??= { protocols: {} });

/**
 * The frame protocols the element knows, by `protocol` attribute value: what the entry points
 * loaded in this page registered (`defineEmbeddedDashboard`). The main entry (and its standalone
 * script) registers `message`, `explo` and `explo-jwt`; `@embedded-dashboard/element/superset`
 * `superset`; `@embedded-dashboard/element/metabase` `metabase`. The element's core knows none by itself: a vendor is a module of its own, and a
 * page ships only the vendors it imports.
 */
export const FRAME_PROTOCOLS: Record<string, FrameProtocol> = FRAME_FEATURES.protocols;
