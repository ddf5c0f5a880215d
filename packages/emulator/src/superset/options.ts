import { parseFaultSettings, type VendorFaultSettings } from '../faults/settings.js';
import { SAMPLE_SUPERSET_DASHBOARDS, type SupersetSampleDashboard } from './sample-data.js';

/** The operations of the Superset mode that faults can be limited to. */
export const SUPERSET_FAULT_OPERATIONS = ['login', 'refresh', 'csrfToken', 'guestToken', 'chartData', 'embeddedPage'] as const;
export type SupersetFaultOperation = (typeof SUPERSET_FAULT_OPERATIONS)[number];
export type SupersetFaultSettings = VendorFaultSettings<SupersetFaultOperation>;

/** A database user of the emulated Superset. */
export interface SupersetUserOption {
  username: string;
  password: string;
  /** Whether its role has `can_grant_guest_token` (a service account); default `true`. */
  grantGuestToken?: boolean;
}

/**
 * How the emulator's Superset mode behaves (every field optional). The defaults are Superset 6.1.0's
 * (`superset/config.py`, Flask-JWT-Extended's) where it has one.
 */
export interface SupersetEmulatorOptions {
  /** Who may log in. Default {@link DEFAULT_SUPERSET_USERS}. */
  users?: SupersetUserOption[];
  /** Signs access tokens and the CSRF session (Superset's SECRET_KEY). Default: random per emulator. */
  secretKey?: string;
  /** GUEST_TOKEN_JWT_SECRET: the HS256 key of guest tokens. Default Superset's own, `test-guest-secret-change-me`. */
  guestTokenSecret?: string;
  /** GUEST_TOKEN_JWT_AUDIENCE, checked on every guest request. Default {@link DEFAULT_SUPERSET_AUDIENCE}. */
  guestTokenAudience?: string;
  /** GUEST_TOKEN_JWT_EXP_SECONDS. Default 300. */
  guestTokenSeconds?: number;
  /** The service account's access token lifetime (JWT_ACCESS_TOKEN_EXPIRES). Default 900. */
  accessTokenSeconds?: number;
  /** CSP `frame-ancestors` of the embedded page. Default `'self' http://127.0.0.1:* http://localhost:*`. */
  frameAncestors?: string[];
  /** The embedded dashboards. Default {@link SAMPLE_SUPERSET_DASHBOARDS}. */
  dashboards?: SupersetSampleDashboard[];
  /** Mount `/__emulator/faults` and `/__emulator/stats`. Default `false`. */
  admin?: boolean;
  faults?: SupersetFaultSettings;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /** Largest accepted request body. Default 64 KiB. */
  maxBodyBytes?: number;
}

export const DEFAULT_SUPERSET_USERS: readonly SupersetUserOption[] = [
  { username: 'embed-service', password: 'embed-service-password', grantGuestToken: true },
  { username: 'embed-viewer', password: 'embed-viewer-password', grantGuestToken: false },
];
export const DEFAULT_SUPERSET_GUEST_SECRET = 'test-guest-secret-change-me';
export const DEFAULT_SUPERSET_AUDIENCE = 'embedded-dashboard-emulator';
export const DEFAULT_SUPERSET_FRAME_ANCESTORS: readonly string[] = ["'self'", 'http://127.0.0.1:*', 'http://localhost:*'];

export interface ResolvedSupersetOptions {
  users: Map<string, { id: number; password: string; grantGuestToken: boolean }>;
  secretKey: Uint8Array;
  guestTokenSecret: Uint8Array;
  guestTokenAudience: string;
  guestTokenSeconds: number;
  accessTokenSeconds: number;
  frameAncestors: readonly string[];
  dashboards: readonly SupersetSampleDashboard[];
  admin: boolean;
  faults: SupersetFaultSettings;
  now: () => number;
  maxBodyBytes: number;
}

const positiveInteger = (name: string, value: number | undefined, fallback: number, max: number) => {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new TypeError(`${name} must be an integer from 1 to ${max}`);
  return value;
};

/** Checks the options; a bad one throws a `TypeError` naming it. */
export function resolveSupersetOptions(options: SupersetEmulatorOptions): ResolvedSupersetOptions {
  const encoder = new TextEncoder();
  const users = new Map<string, { id: number; password: string; grantGuestToken: boolean }>();
  for (const [index, user] of (options.users ?? DEFAULT_SUPERSET_USERS).entries()) {
    if (typeof user.username !== 'string' || user.username === '' || typeof user.password !== 'string' || user.password === '') {
      throw new TypeError('users: each needs a non-empty username and password');
    }
    if (users.has(user.username)) throw new TypeError(`users: ${user.username.slice(0, 64)} is given twice`);
    // Id 1 is the admin a real install starts with; the service accounts come after it.
    users.set(user.username, { id: index + 2, password: user.password, grantGuestToken: user.grantGuestToken ?? true });
  }
  for (const [name, value] of [
    ['secretKey', options.secretKey],
    ['guestTokenSecret', options.guestTokenSecret],
    ['guestTokenAudience', options.guestTokenAudience],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value === '')) throw new TypeError(`${name} must be a non-empty string`);
  }
  const dashboards = options.dashboards ?? SAMPLE_SUPERSET_DASHBOARDS;
  const uuids = new Set<string>();
  for (const dashboard of dashboards) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(dashboard.uuid) || uuids.has(dashboard.uuid)) {
      throw new TypeError('dashboards: each needs a distinct lower-case UUID');
    }
    uuids.add(dashboard.uuid);
  }
  const randomKey = () => {
    const bytes = new Uint8Array(32);
    crypto.getRandomValues(bytes);
    return bytes;
  };
  return {
    users,
    secretKey: options.secretKey === undefined ? randomKey() : encoder.encode(options.secretKey),
    guestTokenSecret: encoder.encode(options.guestTokenSecret ?? DEFAULT_SUPERSET_GUEST_SECRET),
    guestTokenAudience: options.guestTokenAudience ?? DEFAULT_SUPERSET_AUDIENCE,
    guestTokenSeconds: positiveInteger('guestTokenSeconds', options.guestTokenSeconds, 300, 31_536_000),
    accessTokenSeconds: positiveInteger('accessTokenSeconds', options.accessTokenSeconds, 900, 31_536_000),
    frameAncestors: options.frameAncestors ?? DEFAULT_SUPERSET_FRAME_ANCESTORS,
    dashboards,
    admin: options.admin ?? false,
    faults: options.faults === undefined ? {} : parseFaultSettings(options.faults, SUPERSET_FAULT_OPERATIONS),
    now: options.now ?? Date.now,
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes, 64 * 1024, 16 * 1024 * 1024),
  };
}
