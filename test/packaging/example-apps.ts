/**
 * The example apps (examples/express, fastify, nextjs) copied into the consumer project and, for
 * Next.js, built: once per consumer project, shared by every test file that runs them
 * (examples.test.ts here, test/topology behind nginx). A stamp of the example's sources marks the
 * copy as done, so a later file (or a rerun with REUSE_CONSUMER) reuses the build, and an edited
 * example is copied and built again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { freePort } from '../support/ports.js';
import { isAlive } from '../support/processes.js';
import { copyIntoConsumer, REPOSITORY_ROOT, runOk, startServer, type ServerProcess } from './consumer.js';

export type ExampleName = 'express' | 'fastify' | 'nextjs';

/** The session secret the examples sign their cookies with in the tests. */
export const EXAMPLE_SESSION_SECRET = 'examples-test-session-secret-0123456789abcdef';

/** Users of the examples' own login, one per customer (`id`: the customer's own id, the session's `org_id`). */
export const EXAMPLE_USERS = [
  { email: 'wile@acme.example', password: 'acme-demo', name: 'Acme Corp', id: 'acme' },
  { email: 'hank@globex.example', password: 'globex-demo', name: 'Globex', id: 'globex' },
] as const;

const sourceStamp = (dir: string): string => {
  const hash = createHash('sha256');
  const walk = (path: string) => {
    for (const entry of readdirSync(path).sort()) {
      if (entry === 'node_modules' || entry === '.next') continue;
      const full = join(path, entry);
      if (statSync(full).isDirectory()) walk(full);
      else hash.update(`${full.slice(dir.length)}\0`).update(readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 16);
};

/** Preparations in flight or done in this test file: the scenarios of several engines start the same example at once. */
const preparing = new Map<string, Promise<string>>();

/** The example's directory in the consumer project, copied (and built, for Next.js) if its sources changed since; once per file, however many ask at once. */
export function preparedExample(consumerDir: string, name: ExampleName): Promise<string> {
  const key = join(consumerDir, name);
  let prepared = preparing.get(key);
  if (!prepared) {
    prepared = prepare(consumerDir, name);
    preparing.set(key, prepared);
    prepared.catch(() => preparing.delete(key));
  }
  return prepared;
}

/** Beside the example's copy (not in it: the copy is replaced): the pid of a process preparing it now. */
const preparingMarker = (consumerDir: string, name: ExampleName) => join(consumerDir, 'examples', `.${name}.preparing`);

/**
 * Starts preparing `name` (the Next.js build) in this process, in the background: the run's
 * global setup calls it right after the install, so the build runs beside the first test files
 * (tsc and browser tests, one core each at most) instead of in the middle of the run. A test
 * file that needs the example meanwhile waits for it ({@link preparedExample}); a failure is
 * reported by that test, which prepares it again itself. `cancel()` (the run's teardown) kills
 * a build no file waited for (a run of other files): the next run builds it again.
 */
export function prepareInBackground(consumerDir: string, name: ExampleName): { cancel(): Promise<void> } {
  const marker = preparingMarker(consumerDir, name);
  mkdirSync(dirname(marker), { recursive: true });
  writeFileSync(marker, String(process.pid));
  const abort = new AbortController();
  const done = prepare(consumerDir, name, abort.signal).then(
    () => undefined,
    (error: unknown) => {
      if (!abort.signal.aborted)
        console.warn(`embedded-dashboard: preparing examples/${name} in the background failed; the test that needs it prepares it again:`, error);
    },
  );
  void done.finally(() => rmSync(marker, { force: true }));
  return {
    cancel: async () => {
      abort.abort();
      await done;
    },
  };
}

/** Waits while another living process (the run's global setup) prepares the example, at most `timeoutMs`. */
async function awaitOtherPreparation(consumerDir: string, name: ExampleName, timeoutMs = 600_000): Promise<void> {
  const marker = preparingMarker(consumerDir, name);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let pid: number;
    try {
      pid = Number(readFileSync(marker, 'utf8'));
    } catch {
      return;
    }
    if (pid === process.pid || !isAlive(pid) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function prepare(consumerDir: string, name: ExampleName, signal?: AbortSignal): Promise<string> {
  const stamp = sourceStamp(join(REPOSITORY_ROOT, 'examples', name));
  const target = join(consumerDir, 'examples', name);
  const stampFile = join(target, '.prepared');
  if (!signal) await awaitOtherPreparation(consumerDir, name);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return target;
  const app = await copyIntoConsumer(consumerDir, `examples/${name}`, `examples/${name}`);
  if (name === 'nextjs') {
    // The build reads no secret (the BFF and the pages read the environment per request).
    await runOk(join(consumerDir, 'node_modules/.bin/next'), ['build'], { cwd: app, env: { NEXT_TELEMETRY_DISABLED: '1' }, timeoutMs: 600_000, signal });
  }
  await writeFile(stampFile, stamp);
  return app;
}

export interface RunningExample {
  server: ServerProcess;
  /** `http://127.0.0.1:PORT`: where it listens. */
  url: string;
}

/**
 * Starts a prepared example against the vendor at `upstreamUrl` on `port` (default: a free one),
 * listening on 127.0.0.1. `env` adds to (or overrides) the example's environment.
 */
export async function startExample(
  consumerDir: string,
  name: ExampleName,
  options: { upstreamUrl: string; port?: number; env?: Record<string, string> },
): Promise<RunningExample> {
  const app = await preparedExample(consumerDir, name);
  const port = options.port ?? (await freePort());
  const env = {
    EMBED_UPSTREAM_URL: options.upstreamUrl,
    EMBED_API_TOKEN: 'dev-customer-key',
    SESSION_SECRET: EXAMPLE_SESSION_SECRET,
    NO_COLOR: '1',
    NEXT_TELEMETRY_DISABLED: '1',
    ...options.env,
  };
  const server =
    name === 'nextjs'
      ? await startServer(join(consumerDir, 'node_modules/.bin/next'), ['start', '--hostname', '127.0.0.1', '--port', String(port)], {
          cwd: app,
          env,
          readyText: /Ready in/,
          timeoutMs: 60_000,
        })
      : await startServer(process.execPath, ['server.js'], { cwd: app, env: { ...env, PORT: String(port) }, readyText: 'example listening on ' });
  return { server, url: `http://127.0.0.1:${port}` };
}
