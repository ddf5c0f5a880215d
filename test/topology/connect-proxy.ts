/**
 * How WebKit reaches the named hosts: MiniBrowser has no host-resolver setting of its own, but
 * takes an HTTP proxy (`--proxy`), and a browser asks its proxy for `CONNECT app.test:443` by
 * name. This proxy tunnels exactly those (the topology's hosts, port 443) to one nginx port and
 * refuses everything else, so nothing of the browser's leaves the machine and the page is at
 * `https://app.test` with the default port, as in production. The TLS inside the tunnel is the
 * browser's with nginx; the proxy sees bytes only. (WebKit sends loopback URLs to its proxy too
 * unless they are exempted: topology.ts does, with `--ignore-host`.)
 */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ConnectProxy {
  port: number;
  close(): Promise<void>;
}

/** Starts the proxy on a free port of 127.0.0.1: `CONNECT <host>:443` for each of `hosts` goes to 127.0.0.1:`target`. */
export function startConnectProxy(hosts: readonly string[], target: number): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server: Server = createServer((req, res) => {
    // Plain-HTTP proxying (`GET http://…`): the topology is HTTPS only.
    res.writeHead(403, { 'content-type': 'text/plain' }).end('this proxy only tunnels the topology hosts on port 443\n');
  });
  server.on('connection', track);
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const match = /^([a-z0-9.-]+):443$/.exec(req.url ?? '');
    if (!match || !hosts.includes(match[1]!)) {
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(target, '127.0.0.1');
    track(upstream);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address !== 'object' || !address) return reject(new Error('the proxy has no address'));
      resolve({
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
