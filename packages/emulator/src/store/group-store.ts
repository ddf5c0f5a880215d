import type { DataSourceMapping, Environment, UserGroupProperties } from '@embedded-dashboard/protocol';
import { emptySnapshot, type StoreSnapshot, type StoredGroup, type StoredToken } from './snapshot.js';
import { newUserGroupToken } from './tokens.js';

/** A group's create or update as the API validated it (`api/validate.ts`); omitted `mapping`/`properties` stay undefined. */
export interface GroupRequest {
  name: string;
  userGroupId: string;
  mapping: DataSourceMapping | undefined;
  properties: UserGroupProperties | undefined;
}

/** An update_customer: only `provided_id` is required; every field left out stays as it is. */
export interface GroupUpdate extends Omit<GroupRequest, 'name'> {
  name: string | undefined;
}

export interface GroupStoreOptions {
  now: () => number;
  /** 0 = tokens never expire. */
  tokenTtlMs: number;
  /** How long a rotated-out token keeps working for viewing dashboards. */
  rotationGraceMs: number;
}

/** `${environment}\n${providedId}`: ids are unique per environment only. */
const groupKey = (environment: Environment, providedId: string) => `${environment}\n${providedId}`;

/**
 * The emulator's user groups and tokens, in memory. Every mutation is synchronous, so a
 * snapshot taken after it (for the data file) always contains it.
 */
export class GroupStore {
  readonly #options: GroupStoreOptions;
  #groups = new Map<string, StoredGroup>();
  #tokens = new Map<string, StoredToken>();
  #nextTeamId = 1;

  constructor(options: GroupStoreOptions, snapshot: StoreSnapshot = emptySnapshot()) {
    this.#options = options;
    this.#load(snapshot);
  }

  #load(snapshot: StoreSnapshot): void {
    this.#groups = new Map(snapshot.groups.map((group) => [groupKey(group.environment, group.providedId), { ...group }]));
    this.#tokens = new Map(snapshot.tokens.map((token) => [token.token, { ...token }]));
    this.#nextTeamId = snapshot.nextTeamId;
  }

  get size(): number {
    return this.#groups.size;
  }

  /** Returns the stored group unchanged when it exists (get-or-create never updates). */
  getOrCreate(environment: Environment, request: GroupRequest): { group: StoredGroup; created: boolean } {
    const key = groupKey(environment, request.userGroupId);
    const existing = this.#groups.get(key);
    if (existing) return { group: existing, created: false };
    const group: StoredGroup = {
      teamId: this.#nextTeamId++,
      environment,
      providedId: request.userGroupId,
      name: request.name,
      mapping: request.mapping ?? {},
      properties: request.properties ?? null,
      token: this.#issue(environment, request.userGroupId),
    };
    this.#groups.set(key, group);
    return { group, created: true };
  }

  /** The group with this provided id in this environment, if any. */
  find(environment: Environment, providedId: string): StoredGroup | undefined {
    return this.#groups.get(groupKey(environment, providedId));
  }

  /**
   * Replaces each field given (a given object replaces the whole one, as the vendor's Update
   * Customer documents); a field left out is unchanged. `undefined` when the group does not exist.
   */
  update(environment: Environment, request: GroupUpdate): StoredGroup | undefined {
    const group = this.#groups.get(groupKey(environment, request.userGroupId));
    if (!group) return undefined;
    if (request.name !== undefined) group.name = request.name;
    if (request.mapping !== undefined) group.mapping = request.mapping;
    if (request.properties !== undefined) group.properties = request.properties;
    return group;
  }

  /**
   * Gives the group whose *current* token this is a new token. An expired current token may
   * still be rotated (that is how a holder recovers); a rotated-out one may not.
   */
  rotate(environment: Environment, currentToken: string): StoredGroup | undefined {
    const entry = this.#tokens.get(currentToken);
    if (!entry || entry.environment !== environment || entry.retiredAt !== null) return undefined;
    const group = this.#groups.get(groupKey(environment, entry.providedId));
    if (!group || group.token !== currentToken) return undefined;
    const now = this.#options.now();
    entry.retiredAt = now;
    this.#pruneRetired(now);
    group.token = this.#issue(environment, group.providedId);
    return group;
  }

  /** Makes a token stop working now; `false` when the emulator never issued it. */
  expireToken(token: string): boolean {
    const entry = this.#tokens.get(token);
    if (!entry) return false;
    entry.expired = true;
    return true;
  }

  /** The group a token identifies right now, honouring TTL, rotation grace and expiry. */
  resolveToken(token: string): StoredGroup | undefined {
    const entry = this.#tokens.get(token);
    if (!entry || entry.expired) return undefined;
    const now = this.#options.now();
    const { tokenTtlMs, rotationGraceMs } = this.#options;
    if (tokenTtlMs > 0 && now >= entry.issuedAt + tokenTtlMs) return undefined;
    if (entry.retiredAt !== null && now >= entry.retiredAt + rotationGraceMs) return undefined;
    return this.#groups.get(groupKey(entry.environment, entry.providedId));
  }

  reset(): void {
    this.#load(emptySnapshot());
  }

  snapshot(): StoreSnapshot {
    return {
      version: 1,
      nextTeamId: this.#nextTeamId,
      groups: [...this.#groups.values()].map((group) => ({ ...group })),
      tokens: [...this.#tokens.values()].map((token) => ({ ...token })),
    };
  }

  #issue(environment: Environment, providedId: string): string {
    let token = newUserGroupToken();
    // A collision of 192 random bits will not happen; the loop only makes that a certainty.
    while (this.#tokens.has(token)) token = newUserGroupToken();
    this.#tokens.set(token, { token, environment, providedId, issuedAt: this.#options.now(), retiredAt: null, expired: false });
    return token;
  }

  /** Forgets rotated-out tokens whose grace has ended, so memory and the data file stay bounded. */
  #pruneRetired(now: number): void {
    for (const [token, entry] of this.#tokens) {
      if (entry.retiredAt !== null && now >= entry.retiredAt + this.#options.rotationGraceMs) this.#tokens.delete(token);
    }
  }
}
