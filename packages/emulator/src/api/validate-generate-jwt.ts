import { EmulatorErrorCode, GENERATE_JWT_FIELDS } from '@embedded-dashboard/protocol';
import { ISSUER, REPORT_BUILDER_FEATURES } from '../embed/embed-token.js';
import { EmulatorHttpError } from '../http/errors.js';

/** `expiration` when the request gives none: the vendor's "24 hours after creation". */
export const DEFAULT_EMBED_TOKEN_SECONDS = 24 * 3600;
/** The longest `expiration` the emulator accepts (its own bound; the vendor states none). */
export const MAX_EMBED_TOKEN_SECONDS = 366 * 24 * 3600;

/** A validated `POST /api/generate_jwt/` body. */
export interface GenerateJwtRequest {
  providedId: string;
  embedId: string;
  keyId: string | undefined;
  expirationSeconds: number;
  issuer: string | undefined;
  reportBuilderFeatures: string[] | undefined;
  disableEditableSections: boolean | undefined;
  /** One chart of the dashboard (`chart_id`): a single-chart token. */
  chartId: string | undefined;
}

const FIELDS: ReadonlySet<string> = new Set(GENERATE_JWT_FIELDS);
const invalid = (message: string) => new EmulatorHttpError(EmulatorErrorCode.invalidField, message);

function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw invalid(`${field} is required`);
  if (typeof value !== 'string' || value.trim() === '' || value.length > 256) throw invalid(`${field} must be a string of 1 to 256 characters`);
  return value;
}

/** `string | null` fields: `undefined` when absent or null. */
function optional<T>(body: Record<string, unknown>, field: string, check: (value: unknown) => value is T, expected: string): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw invalid(`${field} must be ${expected} or null`);
  return value;
}

const isShortString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= 256;

/**
 * An ISO-8601 duration in whole seconds: `PnW`, or `PnD` and/or `T` with `nH`, `nM`, `nS`
 * (integers; seconds may have a fraction, which is dropped). Years and months are refused: their
 * length depends on the calendar. `undefined` for anything else.
 */
export function parseIsoDuration(text: string): number | undefined {
  const match = /^P(?:(\d{1,6})W|(?:(\d{1,6})D)?(?:T(?:(\d{1,8})H)?(?:(\d{1,8})M)?(?:(\d{1,10})(?:[.,]\d{1,9})?S)?)?)$/.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [, weeks, days, hours, minutes, seconds] = match.map((part) => Number(part ?? 0));
  return weeks! * 604_800 + days! * 86_400 + hours! * 3600 + minutes! * 60 + seconds!;
}

/**
 * Validates a generate_jwt body as the vendor documents it (packages/protocol/README.md): every
 * field checked, unknown ones refused. `chart_id` is checked against the dashboard's charts by the
 * route (the emulator's account has single-chart embedding enabled).
 */
export function parseGenerateJwtRequest(body: Record<string, unknown>): GenerateJwtRequest {
  for (const key of Object.keys(body)) {
    if (!FIELDS.has(key)) throw invalid(`unknown field ${JSON.stringify(key.slice(0, 64))}; allowed: ${[...FIELDS].join(', ')}`);
  }
  const providedId = requiredString(body, 'provided_id');
  const embedId = requiredString(body, 'embed_id');
  const keyId = optional(body, 'key_id', isShortString, 'the id of an embed secret');
  const expiration = optional(body, 'expiration', (v): v is string => typeof v === 'string' && v.length <= 64, 'an ISO-8601 duration such as "PT1H"');
  let expirationSeconds = DEFAULT_EMBED_TOKEN_SECONDS;
  if (expiration !== undefined) {
    const seconds = parseIsoDuration(expiration);
    if (seconds === undefined) throw invalid('expiration must be an ISO-8601 duration of weeks, days, hours, minutes or seconds, such as "PT1H" or "P1D"');
    if (seconds < 1 || seconds > MAX_EMBED_TOKEN_SECONDS) throw invalid(`expiration must be from 1 second to ${MAX_EMBED_TOKEN_SECONDS / 86_400} days`);
    expirationSeconds = seconds;
  }
  const chartId = optional(body, 'chart_id', (v): v is string => typeof v === 'string' && /^[\w-]{1,128}$/.test(v), 'a chart id (1-128 of A-Z a-z 0-9 _ -)');
  const reportBuilderFeatures = optional(
    body,
    'rb_allowed_features',
    (v): v is string[] => Array.isArray(v) && v.length <= REPORT_BUILDER_FEATURES.length && v.every((f) => REPORT_BUILDER_FEATURES.includes(f as string)),
    `a list of ${REPORT_BUILDER_FEATURES.join(', ')}`,
  );
  const disableEditableSections = optional(body, 'disable_editable_section_editing', (v): v is boolean => typeof v === 'boolean', 'a boolean');
  const issuer = optional(
    body,
    'embed_origin',
    (v): v is string => typeof v === 'string' && ISSUER.test(v),
    "an origin with the trailing '/' (https://app.example.com/)",
  );
  return { providedId, embedId, keyId, expirationSeconds, issuer, reportBuilderFeatures, disableEditableSections, chartId };
}
