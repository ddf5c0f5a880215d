import type { SupersetGuestTokenRequest } from '@embedded-dashboard/protocol';
import { isSupersetEmbeddedUuid } from '@embedded-dashboard/protocol';
import { parseClaimTemplate, type ClaimTemplate } from '../claim-template/claim-template.js';

/*
 * Configuration steps 2 and 3 for the Superset vendor (ARCHITECTURE §2.1): `supersetVendor`'s
 * options as types, and their check (a `TypeError` naming the option, never quoting a secret).
 */

/**
 * Superset's default `GUEST_TOKEN_JWT_EXP_SECONDS`: the lifetime of the guest tokens the BFF signs
 * unless told otherwise, and the one it assumes of those Superset mints (their `exp` is the
 * server's setting, which the BFF learns only from each token).
 */
export const SUPERSET_GUEST_TOKEN_TTL_SECONDS = 300;

/** The lifetime (s) of the guest tokens of a mint: the BFF's `ttlSeconds`, or Superset's default for those it mints. */
export const supersetTokenLifetimeSeconds = (mint: { kind: 'vendor' } | { kind: 'local'; ttlSeconds: number }): number =>
  mint.kind === 'local' ? mint.ttlSeconds : SUPERSET_GUEST_TOKEN_TTL_SECONDS;

/** What the adapter needs of a Superset API client: `SupersetClient` from `@embedded-dashboard/client/superset` is one. */
export interface SupersetGuestTokenApi {
  /** A short, non-secret id of the Superset and its service account. */
  readonly accountId: string;
  /** Logs the service account in and fetches the CSRF token with its session cookie. */
  signIn(signal?: AbortSignal): Promise<SupersetServiceSessionLike>;
  /** A guest token and its own `exp` (epoch ms). */
  guestToken(session: SupersetServiceSessionLike, request: SupersetGuestTokenRequest, signal?: AbortSignal): Promise<{ token: string; expiresAt: number }>;
}

/** The service account's session (`SupersetServiceSession` of the client). */
export interface SupersetServiceSessionLike {
  accessToken: string;
  /** The access token's own `exp`, epoch ms. */
  accessExpiresAt: number;
  csrfToken: string;
  cookie: string;
}

/** A row-level security rule as configured: a clause template over session claims, for one dataset or all. */
export interface SupersetRlsRuleTemplate {
  /** SQL over the dataset's columns with `{claim}` placeholders, e.g. `customer_id = {org_id}`. */
  clause: string;
  /** A dataset id; absent: every dataset of the dashboard. */
  dataset?: number;
}

/** Which session claims name the guest user (`user` of the guest token). */
export interface SupersetGuestUserClaims {
  /** Default `sub`; absent in a session: `embed-<customer id>`. */
  username?: string;
  /** Default `given_name`; absent in a session: left out. */
  firstName?: string;
  /** Default `family_name`; absent in a session: left out. */
  lastName?: string;
}

/**
 * Options of `supersetVendor`. Exactly one of `client` (Superset mints each guest token through
 * its API, with the service account) and `guestTokenSecret` (the BFF signs them with Superset's
 * `GUEST_TOKEN_JWT_SECRET`, no request to Superset at all).
 *
 * @example
 * ```ts
 * supersetVendor({
 *   dashboards: ['0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'],
 *   rls: 'customer_id = {org_id}',
 *   guestTokenSecret: process.env.EMBED_SUPERSET_GUEST_SECRET!,
 *   audience: 'superset',
 * });
 * ```
 */
export interface SupersetVendorOptions {
  /** The embedded dashboards' UUIDs (Superset's "Embed dashboard" dialog) a session may get a token for; any other is `403 forbidden`. */
  dashboards: string[];
  /**
   * Row-level security from the session: a clause template (`customer_id = {org_id}`), or rules
   * `{ clause, dataset? }`. Claim values are rendered as SQL literals (see the README's rules);
   * one that cannot be is a 403. `false`: no row-level security, stated on purpose (every
   * guest sees every row the guest role can read). Required.
   */
  rls: string | SupersetRlsRuleTemplate[] | false;
  /** Superset mints the guest tokens: a `SupersetClient` with the service account. */
  client?: SupersetGuestTokenApi;
  /** The BFF signs the guest tokens (HS256) with this secret, Superset's `GUEST_TOKEN_JWT_SECRET`: at least 32 bytes. */
  guestTokenSecret?: string;
  /** With `guestTokenSecret`: the tokens' `aud`, Superset's `GUEST_TOKEN_JWT_AUDIENCE`. */
  audience?: string;
  /** With `guestTokenSecret`: each token's lifetime in seconds, 30 to 86 400. Default 300 (Superset's `GUEST_TOKEN_JWT_EXP_SECONDS`). */
  ttlSeconds?: number;
  /** Session claims of the guest user. */
  user?: SupersetGuestUserClaims;
}

/** The options checked, templates parsed. */
export interface SupersetSettings {
  dashboards: ReadonlySet<string>;
  rls: readonly { clause: ClaimTemplate; dataset: number | undefined }[];
  mint: { kind: 'vendor'; client: SupersetGuestTokenApi } | { kind: 'local'; secret: Uint8Array; audience: string; ttlSeconds: number };
  user: Required<SupersetGuestUserClaims>;
}

const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Checks `supersetVendor`'s options; a mistake throws a `TypeError` naming the option. */
export function resolveSupersetSettings(options: SupersetVendorOptions): SupersetSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('supersetVendor: options must be an object');
  const { dashboards, rls, client, guestTokenSecret, audience, ttlSeconds = SUPERSET_GUEST_TOKEN_TTL_SECONDS, user = {} } = options;
  if (!Array.isArray(dashboards) || dashboards.length === 0 || !dashboards.every(isSupersetEmbeddedUuid)) {
    throw new TypeError("supersetVendor: dashboards must be a non-empty list of embedded dashboard UUIDs (lower-case, as Superset's Embed dialog shows them)");
  }
  if (rls === undefined) {
    throw new TypeError(
      'supersetVendor: rls is required (a clause template such as "customer_id = {org_id}"), or false to embed without row-level security on purpose',
    );
  }
  let rules: SupersetSettings['rls'];
  if (rls === false) rules = [];
  else if (typeof rls === 'string') rules = [{ clause: parseClaimTemplate(rls, { name: 'supersetVendor: rls', sql: true }), dataset: undefined }];
  else if (Array.isArray(rls) && rls.length > 0) {
    rules = rls.map((rule, index) => {
      const name = `supersetVendor: rls[${index}]`;
      if (typeof rule !== 'object' || rule === null) throw new TypeError(`${name} must be { clause, dataset? }`);
      if (rule.dataset !== undefined && (!Number.isSafeInteger(rule.dataset) || rule.dataset < 1))
        throw new TypeError(`${name}.dataset must be a dataset id (a positive integer)`);
      return { clause: parseClaimTemplate(rule.clause, { name: `${name}.clause`, sql: true }), dataset: rule.dataset };
    });
  } else throw new TypeError('supersetVendor: rls must be a clause template, a non-empty list of { clause, dataset? }, or false');

  if ((client === undefined) === (guestTokenSecret === undefined)) {
    throw new TypeError('supersetVendor: set exactly one of client (Superset mints guest tokens) and guestTokenSecret (the BFF signs them)');
  }
  let mint: SupersetSettings['mint'];
  if (client !== undefined) {
    if (typeof client !== 'object' || client === null || typeof client.signIn !== 'function' || typeof client.guestToken !== 'function') {
      throw new TypeError('supersetVendor: client must be a SupersetClient from @embedded-dashboard/client/superset');
    }
    if (audience !== undefined || options.ttlSeconds !== undefined) {
      throw new TypeError('supersetVendor: audience and ttlSeconds go with guestTokenSecret; Superset sets both in the tokens it mints');
    }
    mint = { kind: 'vendor', client };
  } else {
    const secret = new TextEncoder().encode(guestTokenSecret);
    if (typeof guestTokenSecret !== 'string' || secret.length < 32)
      throw new TypeError('supersetVendor: guestTokenSecret must be at least 32 bytes (value not shown)');
    if (typeof audience !== 'string' || audience === '' || audience.length > 256 || /\s/.test(audience)) {
      throw new TypeError("supersetVendor: audience is required with guestTokenSecret: Superset's GUEST_TOKEN_JWT_AUDIENCE (1 to 256 characters, no spaces)");
    }
    if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 30 || ttlSeconds > 86_400)
      throw new TypeError('supersetVendor: ttlSeconds must be a whole number from 30 to 86400');
    mint = { kind: 'local', secret, audience, ttlSeconds };
  }
  const names = { username: user.username ?? 'sub', firstName: user.firstName ?? 'given_name', lastName: user.lastName ?? 'family_name' };
  for (const [field, name] of Object.entries(names)) {
    if (typeof name !== 'string' || !CLAIM_NAME.test(name)) throw new TypeError(`supersetVendor: user.${field} must be a claim name`);
  }
  return { dashboards: new Set(dashboards), rls: rules, mint, user: names };
}
