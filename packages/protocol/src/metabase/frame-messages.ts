/** The window messages the Metabase frame posts to its parent (see `embed.ts`). */

import { isRecord } from '../guards.js';

/** `type` of the frame's messages to its parent (`frontend/src/metabase/lib/embed.js`). */
export const MetabaseFrameMessageType = { frame: 'frame', location: 'location' } as const;
export type MetabaseFrameMessageType = (typeof MetabaseFrameMessageType)[keyof typeof MetabaseFrameMessageType];

/**
 * The frame's size: `mode: "fit"` when the page fits the viewport (a full-height dashboard fills
 * the frame: the host should not grow it to `height`), `"normal"` when `height` (the body's scroll
 * height, CSS px) is the content's.
 */
export interface MetabaseFrameSpec {
  mode: 'fit' | 'normal';
  height: number;
}

/**
 * What the frame posts to `window.parent`, target `"*"`: `{ metabase: { type: "frame", frame } }`
 * each time its size changes (polled every 100 ms) and `{ metabase: { type: "location", location } }`
 * each time its URL changes (`location` the string properties of `window.location`: `href`,
 * `origin`, `protocol`, `host`, `hostname`, `port`, `pathname`, `search`, `hash`).
 */
export type MetabaseFrameMessage =
  | { metabase: { type: typeof MetabaseFrameMessageType.frame; frame: MetabaseFrameSpec } }
  | { metabase: { type: typeof MetabaseFrameMessageType.location; location: Readonly<Record<string, string>> } };

/** The string fields of `location` we keep (any other is dropped by {@link parseMetabaseFrameMessage}). */
export const METABASE_LOCATION_FIELDS = ['href', 'origin', 'protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const;

/** Largest height a frame message may state (CSS px) before it is taken as garbage; ours. */
export const METABASE_MAX_FRAME_HEIGHT = 100_000;
/** Longest `location` field we keep (characters); ours. */
const MAX_LOCATION_FIELD = 8_192;

/**
 * The frame's message, typed, or `undefined` for anything else (another window's messages, wrong
 * types, a height that is not a finite number from 0 to {@link METABASE_MAX_FRAME_HEIGHT}, a
 * prototype key). Says nothing about who sent it: the caller checks `event.source` and
 * `event.origin` (Metabase posts to `"*"`, so anyone can read these and any window can forge them).
 */
export function parseMetabaseFrameMessage(data: unknown): MetabaseFrameMessage | undefined {
  if (!isRecord(data) || !Object.hasOwn(data, 'metabase')) return undefined;
  const message = data.metabase;
  if (!isRecord(message)) return undefined;
  if (message.type === MetabaseFrameMessageType.frame) {
    const frame = message.frame;
    if (!isRecord(frame)) return undefined;
    const { mode, height } = frame;
    if (mode !== 'fit' && mode !== 'normal') return undefined;
    if (typeof height !== 'number' || !Number.isFinite(height) || height < 0 || height > METABASE_MAX_FRAME_HEIGHT) return undefined;
    return { metabase: { type: 'frame', frame: { mode, height } } };
  }
  if (message.type === MetabaseFrameMessageType.location) {
    const location = message.location;
    if (!isRecord(location)) return undefined;
    const kept: Record<string, string> = {};
    for (const field of METABASE_LOCATION_FIELDS) {
      const value = Object.hasOwn(location, field) ? location[field] : undefined;
      if (typeof value === 'string' && value.length <= MAX_LOCATION_FIELD) kept[field] = value;
    }
    return { metabase: { type: 'location', location: kept } };
  }
  return undefined;
}
