import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTimeout } from '@embedded-dashboard/protocol';
import { withSocketDeadline } from './deadline.js';

/** Blocks the event loop, as a long synchronous task or a starved CPU does. */
const busy = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // spin
  }
};

describe('withSocketDeadline', () => {
  let server: Server;
  let client: Socket;
  /** What the server does with each line it receives. */
  let onLine: (socket: Socket, line: string) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((socket) => socket.on('data', (data) => onLine(socket, data.toString())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    client = createConnection({ host: '127.0.0.1', port });
    await new Promise((resolve) => client.once('connect', resolve));
  });
  afterAll(async () => {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Sends `line` and resolves with the answer; the server answers at once, then this process is busy for `busyMs`. */
  const ask = (line: string, busyMs: number) => () => {
    onLine = (socket, received) => {
      socket.write(`re:${received}`);
      // The answer is on its way (in the client's socket buffer within microseconds) while the loop is stuck.
      setImmediate(() => busy(busyMs));
    };
    const answer = new Promise<string>((resolve) => client.once('data', (data) => resolve(data.toString())));
    client.write(line);
    return answer;
  };

  it('takes an answer that arrived in time while the loop was busy past the deadline (a bare timer blames the socket)', async () => {
    await expect(withTimeout(ask('a', 150), 50, () => new Error('late'))).rejects.toThrow('late');
    // Drain the answer the bare timer gave up on.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(withSocketDeadline(ask('b', 150), 50, () => new Error('late'))).resolves.toBe('re:b');
  });

  it('still rejects, and aborts the work, when no answer comes', async () => {
    let aborted = false;
    const never = (signal: AbortSignal) =>
      new Promise<string>(() => {
        signal.addEventListener('abort', () => {
          aborted = true;
        });
      });
    await expect(withSocketDeadline(never, 30, () => new Error('late'))).rejects.toThrow('late');
    expect(aborted).toBe(true);
  });

  it('settles like the work otherwise, a synchronous throw included, and leaves no timer behind', async () => {
    await expect(
      withSocketDeadline(
        () => Promise.resolve(7),
        1_000,
        () => new Error('late'),
      ),
    ).resolves.toBe(7);
    await expect(
      withSocketDeadline(
        () => Promise.reject(new Error('refused')),
        1_000,
        () => new Error('late'),
      ),
    ).rejects.toThrow('refused');
    await expect(
      withSocketDeadline(
        () => {
          throw new Error('thrown');
        },
        1_000,
        () => new Error('late'),
      ),
    ).rejects.toThrow('thrown');
  });
});
