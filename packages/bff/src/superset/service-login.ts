import type { GroupEntry } from '../store/types.js';
import type { VendorContext } from '../vendor/vendor-adapter.js';
import type { SupersetGuestTokenApi, SupersetServiceSessionLike } from './options.js';

/** A stored sign-in is used while at least this long is left of its access token (or half its lifetime, if shorter). */
export const SERVICE_MIN_LEFT_MS = 60_000;

const FINGERPRINT = 'superset-service-session';

/** The session as one store token (`[\w-]` only, as entries hold): base64url of its JSON. */
const encode = (session: SupersetServiceSessionLike): string => {
  const bytes = new TextEncoder().encode(JSON.stringify(session));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

const decode = (token: string): SupersetServiceSessionLike | undefined => {
  try {
    const binary = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
    const parsed = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))) as Partial<SupersetServiceSessionLike>;
    const { accessToken, accessExpiresAt, csrfToken, cookie } = parsed;
    return typeof accessToken === 'string' && typeof accessExpiresAt === 'number' && typeof csrfToken === 'string' && typeof cookie === 'string'
      ? { accessToken, accessExpiresAt, csrfToken, cookie }
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The service account's sign-in (access token, CSRF token and its session cookie), one for the
 * whole fleet: kept in the store until shortly before the access token's own `exp`, renewed by
 * one process at a time (the fleet lock `superset-login:<account>`; the others wait for its entry),
 * and in this process by one call at a time. So a fleet signs in about once per access token
 * lifetime (15 minutes by default), not per request or per process. A sign-in Superset refused
 * (`replace`) is renewed once, unless another process renewed it meanwhile.
 */
export class SupersetServiceLogin {
  readonly #client: SupersetGuestTokenApi;
  readonly #context: VendorContext;
  readonly #key: string;
  #inFlight: Promise<SupersetServiceSessionLike> | undefined;

  constructor(client: SupersetGuestTokenApi, context: VendorContext) {
    this.#client = client;
    this.#context = context;
    this.#key = `${context.keyPrefix}superset-service:${client.accountId}`;
  }

  /** The store key of the sign-in: also the circuit its calls count against. */
  get key(): string {
    return this.#key;
  }

  /** A sign-in with time left, from the store or made now. */
  async current(): Promise<SupersetServiceSessionLike> {
    const stored = this.#usable(await this.#context.entries.read(this.#key), undefined);
    return stored ?? this.#signIn(undefined);
  }

  /** A sign-in other than `rejected`, which Superset refused. */
  async replace(rejected: SupersetServiceSessionLike): Promise<SupersetServiceSessionLike> {
    const stored = this.#usable(await this.#context.entries.read(this.#key), rejected);
    return stored ?? this.#signIn(rejected);
  }

  #usable(entry: GroupEntry | undefined, rejected: SupersetServiceSessionLike | undefined): SupersetServiceSessionLike | undefined {
    if (entry === undefined || entry.fingerprint !== FINGERPRINT) return undefined;
    const session = decode(entry.token);
    if (session === undefined || session.accessToken === rejected?.accessToken) return undefined;
    const lifetimeMs = session.accessExpiresAt - entry.firstSeenAt;
    const leftMs = session.accessExpiresAt - this.#context.now();
    return leftMs >= Math.min(SERVICE_MIN_LEFT_MS, lifetimeMs / 2) && leftMs > 0 ? session : undefined;
  }

  #signIn(rejected: SupersetServiceSessionLike | undefined): Promise<SupersetServiceSessionLike> {
    this.#inFlight ??= this.#context.entries
      .exclusive(
        `superset-login:${this.#key}`,
        this.#key,
        (entry) => this.#usable(entry, rejected) !== undefined,
        async (held) => {
          // Re-read under the lock: another process may have signed in meanwhile.
          const latest = this.#usable(await held.read(), rejected);
          if (latest !== undefined) return latest;
          const askedAt = this.#context.now();
          const session = await this.#context.calls.call(this.#key, 'supersetLogin', 'first-token', () => this.#client.signIn());
          const token = encode(session);
          const ttlMs = session.accessExpiresAt - askedAt;
          if (ttlMs > 0) {
            await held.write(
              { token, firstSeenAt: askedAt, fingerprint: FINGERPRINT, previousToken: null, environment: null, syncedAt: askedAt, lastRotatedAt: askedAt },
              ttlMs,
            );
          }
          return session;
        },
        'signing in to Superset',
      )
      .then((result) => ('token' in result && 'fingerprint' in result ? this.#usable(result, rejected)! : result))
      .finally(() => {
        this.#inFlight = undefined;
      });
    return this.#inFlight;
  }
}
