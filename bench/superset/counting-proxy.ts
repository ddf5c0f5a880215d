import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy on loopback in front of the vendor (a real Superset or the emulator's Superset
 * mode), through which the BFFs reach it: every request that arrives is counted by method and
 * path, and a guest-token request also by the customer and dashboard its body names. That is the
 * count at the vendor's door, the same for the real server (which keeps no counters the bench can
 * read) and the emulator.
 */
export interface VendorCall {
  method: string;
  path: string;
  /** For `POST /api/v1/security/guest_token/`: the dashboard and the rendered row-level security it asks for. */
  pair?: string;
}

export interface CountingProxy {
  url: string;
  calls(): VendorCall[];
  reset(): void;
  stop(): Promise<void>;
}

/** Largest body read to name a guest-token call's pair; the request is forwarded whole either way. */
const MAX_INSPECTED_BYTES = 64 * 1024;

/** The pair a guest-token request body names (`<dashboard> <rls clauses>`), or undefined when it is not that shape. */
export function guestTokenPair(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { resources?: Array<{ id?: unknown }>; rls?: Array<{ clause?: unknown }> };
    const dashboards = (parsed.resources ?? []).map((resource) => String(resource.id));
    const clauses = (parsed.rls ?? []).map((rule) => String(rule.clause));
    return dashboards.length === 0 ? undefined : `${dashboards.join(',')} ${clauses.join(' AND ')}`;
  } catch {
    return undefined;
  }
}

export const GUEST_TOKEN_PATH = '/api/v1/security/guest_token/';

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  let calls: VendorCall[] = [];
  const server = createServer((incoming: IncomingMessage, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = (incoming.url ?? '/').split('?')[0]!;
      const call: VendorCall = { method: incoming.method ?? 'GET', path };
      if (call.method === 'POST' && path === GUEST_TOKEN_PATH && body.length <= MAX_INSPECTED_BYTES) {
        const pair = guestTokenPair(body.toString('utf8'));
        if (pair !== undefined) call.pair = pair;
      }
      calls.push(call);
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => {
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => [...calls],
    reset: () => {
      calls = [];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
