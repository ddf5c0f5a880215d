import type { FaultOperation, FaultSettings } from '@embedded-dashboard/protocol';

const RATE_FIELDS = ['dropRate', 'serverErrorRate', 'rateLimitRate', 'failureRate', 'malformedRate'] as const;
const OPERATIONS: readonly FaultOperation[] = ['getOrCreate', 'update', 'rotate', 'generateJwt'];
const KNOWN_FIELDS = new Set<string>([...RATE_FIELDS, 'latencyMs', 'retryAfterSeconds', 'operations']);
/** Upper bound of `latencyMs`: long enough for any timeout test, short enough not to wedge a run. */
const MAX_LATENCY_MS = 60_000;
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * Checks untrusted fault settings (from the admin route or a caller) and returns a clean copy.
 * Throws a `TypeError` naming the first bad field. `operations` names the operations a vendor mode
 * has (default: Explo's); the Superset mode passes its own.
 */
export function parseFaultSettings(value: unknown): FaultSettings;
export function parseFaultSettings<Op extends string>(value: unknown, operations: readonly Op[]): VendorFaultSettings<Op>;
export function parseFaultSettings(value: unknown, operationNames: readonly string[] = OPERATIONS): VendorFaultSettings<string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError('fault settings must be an object');
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(key)) throw new TypeError(`unknown fault setting ${JSON.stringify(key.slice(0, 64))}`);
  }
  const settings: VendorFaultSettings<string> = {};
  for (const field of RATE_FIELDS) {
    const rate = input[field];
    if (rate === undefined) continue;
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) throw new TypeError(`${field} must be a number from 0 to 1`);
    settings[field] = rate;
  }
  if (input.latencyMs !== undefined) {
    const latency = input.latencyMs;
    if (typeof latency !== 'number' || !Number.isInteger(latency) || latency < 0 || latency > MAX_LATENCY_MS) {
      throw new TypeError(`latencyMs must be an integer from 0 to ${MAX_LATENCY_MS}`);
    }
    settings.latencyMs = latency;
  }
  if (input.retryAfterSeconds !== undefined) {
    const seconds = input.retryAfterSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_RETRY_AFTER_SECONDS) {
      throw new TypeError(`retryAfterSeconds must be an integer from 0 to ${MAX_RETRY_AFTER_SECONDS}`);
    }
    settings.retryAfterSeconds = seconds;
  }
  if (input.operations !== undefined) {
    const operations = input.operations;
    if (!Array.isArray(operations) || !operations.every((op): op is string => operationNames.includes(op as string))) {
      throw new TypeError(`operations must be an array of ${operationNames.join(', ')}`);
    }
    settings.operations = [...new Set(operations)];
  }
  return settings;
}

/** Fault settings of a vendor mode whose operations are `Op` (Explo's are `FaultSettings`). */
export type VendorFaultSettings<Op extends string> = Omit<FaultSettings, 'operations'> & { operations?: Op[] };

/** The fault one request gets, drawn once: `undefined` for none. */
export type FaultKind = 'drop' | 'serverError' | 'rateLimit' | 'failure' | 'malformed';

/** Draws the fault for one request of `operation`, in the documented order of precedence. */
export function drawFault<Op extends string = FaultOperation>(settings: VendorFaultSettings<Op>, operation: Op, random: () => number): FaultKind | undefined {
  if (settings.operations && !settings.operations.includes(operation)) return undefined;
  const order: [FaultKind, number | undefined][] = [
    ['drop', settings.dropRate],
    ['serverError', settings.serverErrorRate],
    ['rateLimit', settings.rateLimitRate],
    ['failure', settings.failureRate],
    ['malformed', settings.malformedRate],
  ];
  const draw = random();
  let threshold = 0;
  for (const [kind, rate] of order) {
    threshold += rate ?? 0;
    if (rate && draw < threshold) return kind;
  }
  return undefined;
}
