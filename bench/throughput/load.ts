import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

/** What the bench asks the load generator to do (read as JSON from stdin). */
export interface LoadRequest {
  url: string;
  connections: number;
  /** A fixed number of requests: the same work for both servers, whatever the machine's speed. */
  amount: number;
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
  /** Wall seconds the requests took. */
  seconds: number;
  /** CPU seconds the load generator itself used (`process.cpuUsage`), to show it was not the limit. */
  generatorCpuSeconds: number;
}

/*
 * The load generator runs in its own process (pinned to a core of its own when `taskset` is
 * there) so it never shares an event loop, or a core, with a server it measures. Every request
 * is the same POST, with the same headers, for the bare app and the BFF.
 */
const request = JSON.parse(readFileSync(0, 'utf8')) as LoadRequest;
const cpuBefore = process.cpuUsage();
const result = await autocannon({
  url: request.url,
  method: 'POST',
  headers: request.headers,
  body: request.body,
  connections: request.connections,
  amount: request.amount,
});
const cpu = process.cpuUsage(cpuBefore);
const report: LoadResult = {
  requestsPerSecond: result.requests.total / result.duration,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  total: result.requests.total,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  seconds: result.duration,
  generatorCpuSeconds: (cpu.user + cpu.system) / 1e6,
};
console.log(JSON.stringify(report));
