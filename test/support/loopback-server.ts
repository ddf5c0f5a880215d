import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A running {@link startLoopbackServer}. */
export interface LoopbackServer {
  url: string;
  /** Destroys the open sockets first: a keep-alive connection would hold `server.close` open. */
  close(): Promise<void>;
}

/**
 * A real node:http server on 127.0.0.1, port 0, for the tests' hostile vendors: each request is
 * handed over once its whole body has been read.
 */
export async function startLoopbackServer(onRequest: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => onRequest(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
