import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

/** What the bench asks the load generator to do (read as JSON from stdin). */
export interface LoadRequest {
  url: string;
  connections: number;
  durationSeconds: number;
  headers: Record<string, string>;
  body: string;
}

/** What it reports (one JSON line on stdout). */
export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/*
 * The load generator runs in its own process so it never shares an event loop with a server it
 * measures. Every request is the same POST, with the same headers, for the bare app and the BFF.
 */
const request = JSON.parse(readFileSync(0, 'utf8')) as LoadRequest;
const result = await autocannon({
  url: request.url,
  method: 'POST',
  headers: request.headers,
  body: request.body,
  connections: request.connections,
  duration: request.durationSeconds,
});
const report: LoadResult = {
  requestsPerSecond: result.requests.average,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  total: result.requests.total,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
};
console.log(JSON.stringify(report));
