import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { BffError } from '../errors/bff-error.js';

export interface RemoteKeySetOptions {
  /** Clock in epoch ms. */
  now: () => number;
  /** Keys older than this are refetched (the old ones serve meanwhile, and if that fails). Default 10 min. */
  maxAgeMs?: number;
  /**
   * Fetches start at most this often, whatever asks (an unknown `kid`, expiry, a retry after a
   * failure), so neither a burst of forged `kid`s nor an outage turns into a fetch per request.
   * Default 1 s: a newly published key is accepted within it.
   */
  minIntervalMs?: number;
  /** After consecutive failures the interval doubles up to this. Default 30 s. */
  maxFailureCooldownMs?: number;
  /** One fetch, answer read whole. Default 3 s (inside the BFF's request deadline). */
  timeoutMs?: number;
  /** Longer key sets are refused. Default 256 KiB. */
  maxBytes?: number;
  /** Told once per failed fetch (not per request), with a reason that carries no secret. */
  onFetchFailed?: (reason: string) => void;
}

/** Why a fetch did not give a key set; the message is for logs, never for the browser. */
class KeySetFetchError extends Error {}

const unavailable = (retryAfterMs: number, cause?: unknown) =>
  new BffError('upstream_unavailable', 'session keys could not be fetched', {
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
    cause,
  });

/**
 * A JWKS fetched over HTTP, as a jose key resolver. Unlike jose's `createRemoteJWKSet`, which
 * maps an error page to "malformed session" and refetches an unknown `kid` at most every 30 s,
 * every failure to get keys is a retryable 503 with `Retry-After`, and an unknown `kid` makes
 * one prompt refetch (single-flight, at most one fetch start per `minIntervalMs`). A `kid` is
 * reported unknown (401) only by a key set fetched after the token arrived; until then the
 * answer is 503 with `Retry-After`.
 */
export function createRemoteKeySet(url: URL, options: RemoteKeySetOptions): JWTVerifyGetKey {
  const { now } = options;
  const maxAgeMs = options.maxAgeMs ?? 600_000;
  const minIntervalMs = options.minIntervalMs ?? 1_000;
  const maxFailureCooldownMs = options.maxFailureCooldownMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 3_000;
  const maxBytes = options.maxBytes ?? 256 * 1024;

  let local: JWTVerifyGetKey | undefined;
  /** When the fetch that gave `local` started: keys published later may be missing from it. */
  let keysFrom = Number.NEGATIVE_INFINITY;
  let lastStartAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let lastError: unknown;
  let inFlight: Promise<void> | undefined;

  const cooldownMs = () => (failures === 0 ? minIntervalMs : Math.min(maxFailureCooldownMs, minIntervalMs * 2 ** (failures - 1)));
  const waitMs = () => Math.max(1, lastStartAt + cooldownMs() - now());

  async function download(): Promise<JWTVerifyGetKey> {
    let response: Response;
    try {
      // A redirect is refused: the key set must come from the configured URL itself.
      response = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new KeySetFetchError(`request failed (${(error as Error).name})`, { cause: error });
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new KeySetFetchError(`answered HTTP ${response.status}`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new KeySetFetchError(`answer not fully read (${(error as Error).name})`, { cause: error });
    }
    if (text.length > maxBytes) throw new KeySetFetchError(`answer is larger than ${maxBytes} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new KeySetFetchError('answer is not JSON');
    }
    try {
      return createLocalJWKSet(json as JSONWebKeySet);
    } catch (error) {
      throw new KeySetFetchError('answer is not a JSON Web Key Set', { cause: error });
    }
  }

  /** Starts a fetch unless one runs or the interval since the last start has not passed; resolves when the current one ends. */
  function refresh(): Promise<void> | undefined {
    if (inFlight !== undefined) return inFlight;
    const startedAt = now();
    if (startedAt - lastStartAt < cooldownMs()) return undefined;
    lastStartAt = startedAt;
    inFlight = download()
      .then(
        (keys) => {
          local = keys;
          keysFrom = startedAt;
          failures = 0;
          lastError = undefined;
        },
        (error: unknown) => {
          failures += 1;
          lastError = error;
          options.onFetchFailed?.((error as Error).message);
        },
      )
      .finally(() => (inFlight = undefined));
    return inFlight;
  }

  return async function remoteKeySet(header, token) {
    const arrivedAt = now();
    if (local === undefined || arrivedAt - keysFrom >= maxAgeMs) {
      // Old keys keep serving while a refetch runs or fails; with none at all, come back later.
      await refresh();
      if (local === undefined) throw unavailable(waitMs(), lastError);
    }
    try {
      return await local(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || keysFrom >= arrivedAt) throw error;
    }
    // An unknown kid, and keys older than the token: the key may have been published since.
    const pending = refresh();
    if (pending === undefined) throw unavailable(waitMs(), lastError);
    await pending;
    // A failed fetch, or one that began before this token arrived, cannot say the kid is unknown.
    if (keysFrom < arrivedAt) throw unavailable(waitMs(), lastError);
    return local(header, token);
  };
}
