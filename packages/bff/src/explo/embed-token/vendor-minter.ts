import {
  exploEmbedIssuer,
  isCompactJwe,
  isoDurationSeconds,
  reuseMinLeftMs,
  type ExploGenerateJwtInput,
  type ExploGenerateJwtResponse,
  type TokenResponse,
} from '@embedded-dashboard/protocol';
import type { CallPriority } from '../../vendor-budget/upstream-budget.js';
import { BffError } from '../../errors/bff-error.js';
import type { BffLogger } from '../../observability/logger.js';
import type { GroupEntry } from '../../store/types.js';
import type { HeldEntry } from '../../customer-token/fleet-lock.js';
import type { GroupEntries } from '../../customer-token/group-entries.js';
import { rotationThrottle } from '../../customer-token/rotation.js';
import { isVendorOutage, type VendorCalls } from '../../customer-token/vendor-calls.js';
import type { EmbedTokenMinter, EmbedTokenRequest } from './local-minter.js';

export interface VendorMinterSettings {
  keyId: string;
  /** Each token's lifetime, asked of the vendor as `expiration`. */
  ttlSeconds: number;
  /** The cap of the spacing of renewals of one token (else 429, as for rotation); the protocol's rule shortens it for short lifetimes. */
  minRotationIntervalMs: number;
  now: () => number;
}

/** The vendor's `generate_jwt`, as `UserGroupClient` (api `explo-customer`) has it. */
export type GenerateJwt = (input: ExploGenerateJwtInput) => Promise<ExploGenerateJwtResponse>;

/**
 * Embed tokens minted by the vendor (`embedToken.mint: 'vendor'`, the Customer API's
 * `generate_jwt`). A vendor call per page view would spend the vendor's rate limit (about 180 a
 * minute per account) on every visit, so each token is kept in the store, one per customer,
 * dashboard and page origin (`iss`), and handed to every session of that customer, in every
 * process sharing the store, until near its expiry (the protocol's `reuseMinLeftMs`). Then one process mints
 * the next one (in-process single-flight and the store lock `mint:<key>`; the others wait for its
 * entry). Every `generate_jwt` goes through the token service's `VendorCalls`: the customer's
 * circuit, the vendor budget (`first-token` for a page view without a working token,
 * `revalidation` for one renewing a stored token ahead of its expiry, `rotation` for a holder's
 * renewal), timing
 * and error mapping. While the budget refuses or the vendor is down, a stored token that has not
 * expired is served rather than an error.
 *
 * Entries are `GroupEntry`s (no store change): `token` the JWE, `firstSeenAt` the time it was
 * asked for (its `expiresAt` is that plus the lifetime, no later than the vendor's `exp`),
 * `lastRotatedAt` the same, `previousToken` the one it replaced, and `fingerprint` the dashboard
 * and `iss` it is for, checked on every read.
 */
export class VendorMinter implements EmbedTokenMinter {
  readonly #generate: GenerateJwt;
  readonly #entries: GroupEntries;
  readonly #calls: VendorCalls;
  readonly #logger: BffLogger;
  readonly #s: VendorMinterSettings;
  readonly #inFlight = new Map<string, Promise<GroupEntry>>();

  constructor(generate: GenerateJwt, entries: GroupEntries, calls: VendorCalls, logger: BffLogger, settings: VendorMinterSettings) {
    this.#generate = generate;
    this.#entries = entries;
    this.#calls = calls;
    this.#logger = logger;
    this.#s = settings;
  }

  async token(request: EmbedTokenRequest): Promise<TokenResponse> {
    const stored = await this.#read(request);
    if (stored !== undefined && this.#reusable(stored)) return this.#respond(stored);
    return this.#respond(await this.#mintOnce(request, stored, undefined));
  }

  /**
   * A holder presents its token when it is due or the dashboard said it expired. Another token
   * than the stored one: someone renewed already, the stored one is the answer. The stored one
   * itself is renewed at the vendor, at most once per minimum interval: inside it the holder
   * gets 429 with `Retry-After` (the dashboard refused a token minted moments ago; asking again
   * at once would only spend the vendor budget).
   */
  async renew(request: EmbedTokenRequest, presented: string): Promise<TokenResponse> {
    const stored = await this.#read(request);
    if (stored !== undefined && stored.token !== presented && this.#reusable(stored)) return this.#respond(stored);
    if (stored !== undefined && stored.token === presented) {
      const throttled = rotationThrottle('this embed token was minted', stored.lastRotatedAt ?? 0, this.#s.ttlSeconds * 1000, this.#s);
      if (throttled) throw throttled;
    }
    return this.#respond(await this.#mintOnce(request, stored, presented));
  }

  readonly #respond = (entry: GroupEntry): TokenResponse => ({ token: entry.token, expiresAt: this.#expiresAt(entry), serverTime: this.#s.now() });

  #expiresAt(entry: GroupEntry): number {
    return entry.firstSeenAt + this.#s.ttlSeconds * 1000;
  }

  #reusable(entry: GroupEntry): boolean {
    const leftMs = this.#expiresAt(entry) - this.#s.now();
    return leftMs >= reuseMinLeftMs(this.#s.ttlSeconds * 1000);
  }

  /** The stored token for the request's customer, dashboard and `iss`; anything stored for another is a miss. */
  async #read(request: EmbedTokenRequest): Promise<GroupEntry | undefined> {
    const entry = await this.#entries.read(storeKey(request));
    return entry?.fingerprint === scope(request) ? entry : undefined;
  }

  /** One mint per key (and token to replace) at a time in this process, and across processes by the store lock. */
  #mintOnce(request: EmbedTokenRequest, stored: GroupEntry | undefined, replacing: string | undefined): Promise<GroupEntry> {
    const key = storeKey(request);
    const flight = `${key}\n${replacing ?? ''}`;
    let pending = this.#inFlight.get(flight);
    if (pending === undefined) {
      const answers = (entry: GroupEntry) => entry.token !== replacing && this.#reusable(entry);
      const mint = async (held: HeldEntry) => {
        // Re-read under the lock (from the store itself): another process may have minted meanwhile.
        const read = await held.read();
        const latest = read?.fingerprint === scope(request) ? read : undefined;
        return latest !== undefined && answers(latest) ? latest : this.#mint(request, latest ?? stored, replacing, held);
      };
      // As for a customer token (GroupEntries.exclusive): another process's mint is waited for,
      // taken over when it ends without a token or dies, and never duplicated; when the wait is
      // over the answer is 503 `group_busy` (retry in 1 s), served by the holder's token.
      pending = this.#entries
        .exclusive(`mint:${key}`, key, (entry) => entry.fingerprint === scope(request) && answers(entry), mint, 'minting this embed token')
        .finally(() => this.#inFlight.delete(flight));
      this.#inFlight.set(flight, pending);
    }
    return pending;
  }

  async #mint(request: EmbedTokenRequest, previous: GroupEntry | undefined, replacing: string | undefined, held: HeldEntry): Promise<GroupEntry> {
    const askedAt = this.#s.now();
    const input: ExploGenerateJwtInput = {
      provided_id: request.customer,
      embed_id: request.dashboard,
      key_id: this.#s.keyId,
      expiration: isoDurationSeconds(this.#s.ttlSeconds),
      ...(request.pageOrigin !== undefined && { embed_origin: exploEmbedIssuer(request.pageOrigin) }),
      ...(request.chart !== undefined && { chart_id: request.chart }),
      ...(request.disableEditableSectionEditing !== undefined && { disable_editable_section_editing: request.disableEditableSectionEditing }),
    };
    const servable = previous !== undefined && previous.token !== replacing && this.#expiresAt(previous) > askedAt;
    // A renewal waits for its budget slot like a rotation; a page view while the stored token still
    // works renews it ahead of time at the lowest priority (never waiting); one without waits as a first token.
    const priority: CallPriority = replacing !== undefined ? 'rotation' : servable ? 'revalidation' : 'first-token';
    let answer: ExploGenerateJwtResponse | undefined;
    try {
      answer = await this.#calls.deferrable(request.groupKey, 'generateJwt', priority, servable, () => this.#generate(input));
    } catch (error) {
      if (!servable || !isVendorOutage(error)) throw error;
    }
    if (answer === undefined) {
      // The budget deferred it or the vendor is down: a stored token that still works beats an error.
      this.#logger.info('embed token not renewed at the vendor now: serving the stored one, which has not expired');
      return previous!;
    }
    const { jwt } = answer;
    if (!isCompactJwe(jwt)) {
      throw new BffError('upstream_error', "the dashboard vendor's generate_jwt answered something that is not an embed token (a compact JWE)", {
        retryable: false,
      });
    }
    const entry: GroupEntry = {
      token: jwt,
      firstSeenAt: askedAt,
      fingerprint: scope(request),
      previousToken: previous?.token ?? null,
      environment: null,
      syncedAt: askedAt,
      lastRotatedAt: askedAt,
    };
    // The store forgets it about when it expires (it is served only before that anyway).
    await held.write(entry, this.#s.ttlSeconds * 1000);
    return entry;
  }
}

/**
 * What a stored token is for besides its customer: the dashboard, the chart (`*`: the whole
 * dashboard; a single-chart token is never served for another chart or the whole dashboard), the
 * editable-section lock (`des`, `-` unsaid) and the `iss` (none for a caller that is no browser).
 * Chart ids, like dashboard ids, cannot be `*` or hold a space.
 */
const scope = (request: EmbedTokenRequest): string =>
  `${request.dashboard} ${request.chart ?? '*'} ${request.disableEditableSectionEditing === undefined ? '-' : `des=${request.disableEditableSectionEditing}`} ${request.pageOrigin ?? '-'}`;

/**
 * The store key of a customer's vendor-minted token for one dashboard, chart, lock and page
 * origin. None of those has spaces, so the customer's key (which may) goes last.
 */
const storeKey = (request: EmbedTokenRequest): string => `embed-jwt:${scope(request)} ${request.groupKey}`;
