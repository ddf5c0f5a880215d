import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: a crash, as far as clients can tell). */
  stop(): Promise<void>;
  /**
   * Starts it again on the same port: empty, or with what its append-only file kept
   * (`appendOnly`) unless `empty` (the file is deleted first: a restart that lost its data).
   */
  start(options?: { empty?: boolean }): Promise<void>;
  /** SIGSTOP: it hangs (connections stay open, nothing is answered) until `resume()`. */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
  /** Stops it for good and removes its scratch directory. */
  dispose(): Promise<void>;
}

/**
 * Resolves once something accepts TCP connections on 127.0.0.1:`port`. `gone` says why the
 * process meant to listen there can no longer do so (it exited): then it rejects at once with
 * that reason instead of waiting out `timeoutMs`.
 */
export const waitForPort = async (port: number, timeoutMs: number, gone: () => string | undefined = () => undefined) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = gone();
    if (reason !== undefined) throw new Error(`redis-server on ${port} ${reason} before it listened`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

export interface RedisServerOptions {
  /** Persist every write to an append-only file (`appendfsync always`), so a restart keeps it. Default: no persistence. */
  appendOnly?: boolean;
}

/** How `child` ended (`exited with 1`, `killed by SIGKILL`), or `undefined` while it runs. */
export const exitReason = (child: ChildProcess): string | undefined =>
  child.signalCode !== null ? `was killed by ${child.signalCode}` : child.exitCode !== null ? `exited with ${child.exitCode}` : undefined;

/** Starts a throwaway redis-server on a free loopback port, without persistence unless asked. */
export async function startRedisServer(binary: string, options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'embed-redis-'));
  let child: ChildProcess | undefined;
  const persistence = options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const start = async ({ empty = false } = {}) => {
    if (empty) for (const file of readdirSync(dir)) rmSync(join(dir, file), { recursive: true, force: true });
    const started = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir], {
      stdio: 'ignore',
    });
    child = started;
    await waitForPort(port, 10_000, () => exitReason(started));
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
