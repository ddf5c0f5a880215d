import type { EmulatorEmbedClaims } from './embed-token.js';
import type { EmbedKeyring, EmbedSecret } from './embed-secrets.js';
import { readEmbedToken, type EmbedTokenCheck } from './embed-token.js';

/** Tokens remembered at most; the oldest go first. */
const MAX_REMEMBERED = 10_000;

/** An embed token the emulator accepted: its claims and the secret it decrypted with. */
export interface AcceptedEmbedToken {
  claims: EmulatorEmbedClaims;
  secret: EmbedSecret;
}

/**
 * The embed tokens the emulator has read: decrypted once and remembered (a dashboard re-reads
 * its data with the same token every few seconds), so they can also be looked up synchronously
 * (`known`, for `Emulator.resolveToken`) and made to stop working (`revoke`, the admin `expire`
 * route and the demo's "Expire the token now"). An expired or revoked token answers `expired`.
 */
export class EmbedTokenRegistry {
  /** The secrets it decrypts with (and `generate_jwt` encrypts with). */
  readonly keyring: EmbedKeyring;
  readonly #now: () => number;
  readonly #accepted = new Map<string, AcceptedEmbedToken>();
  /** Revoked tokens until their own `exp` (ms), after which they are refused as expired anyway. */
  readonly #revoked = new Map<string, number>();

  constructor(keyring: EmbedKeyring, now: () => number) {
    this.keyring = keyring;
    this.#now = now;
  }

  /** Decrypts and checks `jwt` (or finds it read before); see `readEmbedToken`. A revoked token has expired. */
  async check(jwt: string): Promise<EmbedTokenCheck> {
    const now = this.#now();
    const known = this.#accepted.get(jwt);
    let result: EmbedTokenCheck;
    if (known === undefined) {
      result = await readEmbedToken(jwt, this.keyring, now);
      if (result.ok) this.#remember(jwt, { claims: result.claims, secret: result.secret });
    } else
      result =
        known.claims.exp * 1000 > now ? { ok: true, ...known } : { ok: false, expired: true, message: 'the embed token has expired', claims: known.claims };
    return result.ok && this.#revoked.has(jwt) ? { ok: false, expired: true, message: 'the embed token was revoked', claims: result.claims } : result;
  }

  /** A token accepted before, while it is neither expired nor revoked. */
  known(jwt: string): AcceptedEmbedToken | undefined {
    const known = this.#accepted.get(jwt);
    return known && !this.#revoked.has(jwt) && known.claims.exp * 1000 > this.#now() ? known : undefined;
  }

  /** Makes an accepted token stop working now; `false` for a token never accepted. */
  revoke(jwt: string): boolean {
    const known = this.#accepted.get(jwt);
    if (!known) return false;
    const now = this.#now();
    for (const [token, until] of this.#revoked) if (until <= now) this.#revoked.delete(token);
    this.#revoked.set(jwt, known.claims.exp * 1000);
    if (this.#revoked.size > MAX_REMEMBERED) this.#revoked.delete(this.#revoked.keys().next().value as string);
    return true;
  }

  /** Forgets every token read and revoked. */
  reset(): void {
    this.#accepted.clear();
    this.#revoked.clear();
  }

  #remember(jwt: string, accepted: AcceptedEmbedToken): void {
    this.#accepted.set(jwt, accepted);
    if (this.#accepted.size > MAX_REMEMBERED) this.#accepted.delete(this.#accepted.keys().next().value as string);
  }
}
