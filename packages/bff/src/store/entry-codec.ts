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

/** Serialises an entry for a shared store (Redis, the Durable Objects), in a versioned envelope. */
export function encodeEntry(entry: GroupEntry): string {
  const e: GroupEntry = {
    token: entry.token,
    firstSeenAt: entry.firstSeenAt,
    fingerprint: entry.fingerprint,
    previousToken: entry.previousToken,
    environment: entry.environment,
    syncedAt: entry.syncedAt,
    lastRotatedAt: entry.lastRotatedAt,
  };
  if (entry.account !== undefined) e.account = entry.account;
  if (entry.claimsIssuedAt !== undefined) e.claimsIssuedAt = entry.claimsIssuedAt;
  return JSON.stringify({ v: FORMAT_VERSION, e });
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
  if (
    !isToken(e.token) ||
    !isTime(e.firstSeenAt) ||
    typeof e.fingerprint !== 'string' ||
    !(e.previousToken === null || isToken(e.previousToken)) ||
    !(e.environment === null || isEnvironment(e.environment)) ||
    !isTime(e.syncedAt) ||
    !(e.lastRotatedAt === null || isTime(e.lastRotatedAt)) ||
    !(e.account === undefined || isAccount(e.account)) ||
    !(e.claimsIssuedAt === undefined || isTime(e.claimsIssuedAt))
  ) {
    return undefined;
  }
  const entry: GroupEntry = {
    token: e.token,
    firstSeenAt: e.firstSeenAt,
    fingerprint: e.fingerprint,
    previousToken: e.previousToken,
    environment: e.environment,
    syncedAt: e.syncedAt,
    lastRotatedAt: e.lastRotatedAt,
  };
  if (e.account !== undefined) entry.account = e.account;
  if (e.claimsIssuedAt !== undefined) entry.claimsIssuedAt = e.claimsIssuedAt;
  return entry;
}
