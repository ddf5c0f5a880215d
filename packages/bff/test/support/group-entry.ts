import type { GroupEntry } from '../../src/store/types.js';

/** A stored group entry for the token store tests; the stores keep it as given. */
export const groupEntry = (token: string, overrides: Partial<GroupEntry> = {}): GroupEntry => ({
  token,
  firstSeenAt: 1_790_000_000_000,
  fingerprint: `fp-${token}`,
  previousToken: null,
  environment: 'Customer',
  syncedAt: 1_790_000_000_000,
  lastRotatedAt: null,
  ...overrides,
});
