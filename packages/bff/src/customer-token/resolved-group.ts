import type { UserGroupInput } from '@embedded-dashboard/protocol';

/** A caller's group with what the service derives from it once: its store key and fingerprint. */
export interface ResolvedGroup {
  group: UserGroupInput;
  key: string;
  fingerprint: string;
  /** `iat` of the caller's session in epoch ms (0 when unknown): see `DriftPolicy`. */
  issuedAtMs: number;
}
