import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a test server saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  socket: Socket;
}

/** A raw node:http server on 127.0.0.1:0: only a raw server shows what really went over the wire. */
export async function startRawServer(
  handle: (req: IncomingMessage, res: ServerResponse, seen: SeenRequest) => void,
): Promise<{ url: string; seen: SeenRequest[]; connections: () => number; close(): Promise<void> }> {
  const seen: SeenRequest[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), socket: req.socket };
      seen.push(entry);
      handle(req, res, entry);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer with an exact Content-Length. */
export const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};
