/**
 * The vendor's request limit, per API key: a token bucket holding at most `perMinute` requests
 * that refills at `perMinute` a minute. A full bucket lets a quiet key burst a minute's worth at
 * once; after that requests are admitted at the steady rate.
 */
export interface ApiKeyRateLimit {
  /** `undefined` when the request may go ahead; otherwise the seconds until the next one may. */
  take(apiKey: string): number | undefined;
  /** Forgets every bucket (all keys full again). */
  reset(): void;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** `perMinute` `0` turns the limit off; `burst` is the bucket's size (default a minute's worth). */
export function apiKeyRateLimit(perMinute: number, now: () => number, burst = perMinute): ApiKeyRateLimit {
  const buckets = new Map<string, Bucket>();
  const perMs = perMinute / 60_000;
  return {
    take(apiKey) {
      if (perMinute === 0) return undefined;
      const at = now();
      const bucket = buckets.get(apiKey) ?? { tokens: burst, updatedAt: at };
      // A clock that steps back must not mint tokens, nor take any away.
      bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, at - bucket.updatedAt) * perMs);
      bucket.updatedAt = at;
      buckets.set(apiKey, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return undefined;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
    },
    reset() {
      buckets.clear();
    },
  };
}
