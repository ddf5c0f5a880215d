import { CUSTOM_EVENT_LIMITS } from '@embedded-dashboard/protocol';

/** Keys that would reach an object's prototype when a page copies the value (`Object.assign`). */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

const within = (value: unknown, depth: number): boolean =>
  typeof value !== 'object' ||
  value === null ||
  (depth <= CUSTOM_EVENT_LIMITS.maxDepth &&
    Object.keys(value).every((key) => !PROTOTYPE_KEYS.includes(key) && within((value as Record<string, unknown>)[key], depth + 1)));

/**
 * A fresh JSON copy of what the frame sent over its port, or `undefined` when it is no JSON value
 * within the limits the element holds the dashboard's own events to (`CUSTOM_EVENT_LIMITS`:
 * 32,768 characters as JSON, depth 8) or has a prototype key at any depth. Never throws.
 */
export function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    // Measured before it is parsed, so an oversized answer costs no walk.
    if (text === undefined || text.length > CUSTOM_EVENT_LIMITS.maxEncodedLength) return undefined;
    const copy: unknown = JSON.parse(text);
    return within(copy, 1) ? copy : undefined;
  } catch {
    // A cycle, a BigInt: nothing.
    return undefined;
  }
}
