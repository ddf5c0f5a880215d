import { ENVIRONMENTS, type Environment } from '@embedded-dashboard/protocol';
import type { GroupEntry } from './types.js';

/**
 * The envelope's version: a process running a newer format writes another number, and this one
 * reads that as a miss rather than misreading it.
 */
const FORMAT_VERSION = 1;
/** Far above any real entry; anything bigger is not ours and is not worth parsing. */
export const MAX_ENTRY_BYTES = 64 * 1024;
const MAX_TOKEN_LENGTH = 4096;

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isToken = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_TOKEN_LENGTH;
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
/** `UserGroupUpstream.accountId` is at most this long. */
const MAX_ACCOUNT_LENGTH = 128;
const isAccount = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_ACCOUNT_LENGTH;
const isEnvironment = (value: unknown): value is Environment => (ENVIRONMENTS as readonly unknown[]).includes(value);

/** Checks a stored value as one field's type. */
type Check<T> = (value: unknown) => value is T;
const nullOr =
  <T>(check: Check<T>): Check<T | null> =>
  (value): value is T | null =>
    value === null || check(value);
const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * Every field of an entry, once: how its stored value is checked, and (`optional`) whether it may
 * be absent (a field added later: entries written before it lack it). Encoding and decoding both
 * go through this table, in its order; the type makes a field of `GroupEntry` missing from it, or
 * its optionality wrong, a compile error.
 */
const FIELDS = {
  token: { check: isToken },
  firstSeenAt: { check: isTime },
  fingerprint: { check: isString },
  previousToken: { check: nullOr(isToken) },
  environment: { check: nullOr(isEnvironment) },
  syncedAt: { check: isTime },
  lastRotatedAt: { check: nullOr(isTime) },
  account: { check: isAccount, optional: true },
  claimsIssuedAt: { check: isTime, optional: true },
} satisfies {
  [K in keyof Required<GroupEntry>]: { check: Check<Exclude<GroupEntry[K], undefined>> } & (undefined extends GroupEntry[K]
    ? { optional: true }
    : { optional?: never });
};

const FIELD_NAMES = Object.keys(FIELDS) as (keyof GroupEntry)[];

/** The entry fields of `source`, in the table's order, leaving out absent ones (and anything else it carries). */
const entryFields = (source: Fields): Fields => {
  const fields: Fields = {};
  for (const name of FIELD_NAMES) if (source[name] !== undefined) fields[name] = source[name];
  return fields;
};

/** Serialises an entry for a shared store (Redis, the Durable Objects), in a versioned envelope. */
export function encodeEntry(entry: GroupEntry): string {
  return JSON.stringify({ v: FORMAT_VERSION, e: entryFields(entry as unknown as Fields) });
}

/**
 * Reads back what `encodeEntry` wrote. Anything else (not JSON, another version, a field of the
 * wrong type, a value some other program left under our key) is `undefined`: a cache miss, so
 * the BFF asks the vendor instead of handing out a token it cannot vouch for.
 */
export function decodeEntry(raw: string | null): GroupEntry | undefined {
  if (raw === null || raw.length > MAX_ENTRY_BYTES) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || parsed.v !== FORMAT_VERSION || !isRecord(parsed.e)) return undefined;
  const e = parsed.e;
  for (const name of FIELD_NAMES) {
    const field: { check: (value: unknown) => boolean; optional?: true } = FIELDS[name];
    if (e[name] === undefined ? field.optional !== true : !field.check(e[name])) return undefined;
  }
  // Every field checked against the table above, which the type ties to GroupEntry.
  return entryFields(e) as unknown as GroupEntry;
}
