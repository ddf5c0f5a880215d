import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

/**
 * The real Apache Superset 6.1.0 of the tests: the venv it is installed in, starting and stopping
 * it (test/support/superset/run.py: the project's superset_config.py, a per-run metadata database
 * copied from a migrated template, a SQLite data source with rows for several customers, two
 * embedded dashboards), and what the tests need to talk to it (the manifest).
 *
 * Locally a missing venv skips the Superset tests loudly; in CI (`CI=true`, `EMBED_REQUIRE_TOOLS=1`)
 * it fails them, as for the browsers (test/support/tools.ts).
 */

/** The pinned release every Superset test runs against (test/support/superset/requirements.txt). */
export const SUPERSET_VERSION = '6.1.0';

/** Where the venv is: `EMBED_SUPERSET_VENV`, default `~/.cache/embedded-dashboard/superset-6.1.0` (.ci/run installs it there). */
export const supersetVenv = (): string => process.env.EMBED_SUPERSET_VENV || join(homedir(), '.cache', 'embedded-dashboard', `superset-${SUPERSET_VERSION}`);

/**
 * The script that runs it (also used by scripts/superset.mjs and .ci/run). Compiled copies of this
 * module (bench/dist/test/support/) have no Python files beside them: they use the source tree's.
 */
export const SUPERSET_RUN_SCRIPT =
  [new URL('./superset/run.py', import.meta.url), new URL('../../../../test/support/superset/run.py', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((path) => existsSync(path)) ?? fileURLToPath(new URL('./superset/run.py', import.meta.url));

const required = () => process.env.CI === 'true' || process.env.CI === '1' || process.env.EMBED_REQUIRE_TOOLS === '1';

export interface SupersetTool {
  available: boolean;
  /** The venv's python, or '' when unavailable. */
  python: string;
  /** Why it is unavailable ('' when available). */
  reason: string;
}

/**
 * Whether the venv is there (its python and gunicorn). A missing one throws in CI and warns loudly
 * otherwise; `EMBED_SUPERSET_URL` (a server someone else started, see `supersetFromEnv`) counts too.
 */
export function supersetTool(): SupersetTool {
  const venv = supersetVenv();
  const python = join(venv, 'bin', 'python');
  try {
    accessSync(python, constants.X_OK);
    accessSync(join(venv, 'bin', 'gunicorn'), constants.X_OK);
    return { available: true, python, reason: '' };
  } catch {
    // .ci/run's server is there without a venv of this process's own: the files that share it run; one that starts its own says why it cannot.
    if (process.env.EMBED_SUPERSET_MANIFEST) return { available: true, python: '', reason: '' };
    const reason = `Apache Superset ${SUPERSET_VERSION} not found in ${venv} (EMBED_SUPERSET_VENV)`;
    if (required()) throw new Error(`${reason}: it is required in CI; install it as .ci/run does (pip install -r test/support/superset/requirements.txt)`);
    console.warn(`
*** SKIPPING Superset tests: ${reason}. Install it to run them:
***   python3 -m venv ${venv} && ${venv}/bin/pip install -r test/support/superset/requirements.txt ***
`);
    return { available: false, python: '', reason };
  }
}

/** An embedded dashboard of the test server. */
export interface SupersetDashboard {
  id: number;
  slug: string;
  /** The embedded config's UUID: what `/embedded/<uuid>` and a guest token's resources name. */
  uuid: string;
  /** The embedded config's allowed domains (`[]`: any Referer). */
  allowedDomains: string[];
}

/** A row of the customers' table (`sales`), as the script generated it. */
export interface SupersetSalesRow {
  customer_id: string;
  region: string;
  product: string;
  amount: number;
}

/** What run.py provisioned and how to reach it (the `manifest.json` of the run's home). */
export interface SupersetManifest {
  url: string;
  version: string;
  home: string;
  /** run.py's pid (the process group's leader). */
  pid: number;
  startupSeconds: number;
  /** Tests only: an Admin user (changes embedded configs); never handed to code under test as the service account. */
  admin: { username: string; password: string };
  /** The service account: `can_grant_guest_token` and `can_read on SecurityRestApi`, nothing else. */
  serviceAccount: { username: string; password: string };
  /** A user with `can_read on SecurityRestApi` only: a CSRF token, but a 403 from the guest-token route. */
  viewer: { username: string; password: string };
  /** The server's GUEST_TOKEN_JWT_SECRET, GUEST_TOKEN_JWT_AUDIENCE and GUEST_TOKEN_JWT_EXP_SECONDS. */
  guestToken: { secret: string; audience: string; lifetimeSeconds: number; algorithm: 'HS256' };
  guestRole: string;
  guestPermissions: string[];
  guestPermissionsAbsent: string[];
  serviceRole: string;
  servicePermissions: string[];
  database: { id: number };
  datasets: { sales: { id: number; table: string; columns: string[] } };
  charts: { rows: { id: number }; totals: { id: number } };
  dashboards: { sales: SupersetDashboard; restricted: SupersetDashboard };
  /** Every row of the data source, for the tests' expectations. */
  rows: SupersetSalesRow[];
}

export interface StartSupersetOptions {
  /** Origins allowed to frame the `sales` dashboard (default none: any). */
  allowedDomains?: string[];
  /** The `restricted` dashboard's allowed origins (default `http://allowed.invalid`). */
  restrictedDomains?: string[];
  /** GUEST_TOKEN_JWT_EXP_SECONDS (default Superset's 300). */
  guestTokenSeconds?: number;
  /** Default 240 s (a first start on a fresh venv also makes the migrated template, ~40 s). */
  timeoutMs?: number;
  /** Every line run.py printed goes here too (default: kept, shown on failure). */
  onLine?: (line: string) => void;
}

export interface SupersetServer {
  manifest: SupersetManifest;
  url: string;
  /** Stops it (SIGTERM to its process group, SIGKILL after `graceMs`); the home stays for `start()`. */
  stop(graceMs?: number): Promise<void>;
  /** Starts it again on the same port with the same home: same users, dashboards, secrets. */
  start(): Promise<void>;
  /** Stops it and removes its home. */
  dispose(): Promise<void>;
}

const killGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
};

/** Starts a Superset of its own on 127.0.0.1 (a free port), resolving once it answers with everything provisioned. */
export async function startSuperset(python: string, options: StartSupersetOptions = {}): Promise<SupersetServer> {
  if (!python) throw new Error(`a Superset of its own needs the venv's python: ${supersetVenv()} has none (EMBED_SUPERSET_VENV)`);
  const home = mkdtempSync(join(tmpdir(), 'embed-superset-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let manifest: SupersetManifest | undefined;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const args = [SUPERSET_RUN_SCRIPT, 'serve', '--home', home, '--port', String(port)];
      for (const domain of options.allowedDomains ?? []) args.push('--allowed-domain', domain);
      for (const domain of options.restrictedDomains ?? []) args.push('--restricted-domain', domain);
      if (options.guestTokenSeconds) args.push('--guest-token-seconds', String(options.guestTokenSeconds));
      const timeoutMs = options.timeoutMs ?? 240_000;
      args.push('--timeout', String(timeoutMs / 1000));
      // Its own process group: stop() ends run.py and gunicorn's master and worker together, by pid.
      const started = spawn(python, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      const output: string[] = [];
      const timer = setTimeout(() => {
        killGroup(started, 'SIGKILL');
        reject(new Error(`Superset did not start within ${timeoutMs} ms:\n${output.join('\n')}`));
      }, timeoutMs + 5_000);
      const onLine = (line: string) => {
        output.push(line);
        options.onLine?.(line);
        const ready = 'superset listening on ';
        if (line.startsWith('superset manifest ')) manifest = JSON.parse(readFileSync(line.slice('superset manifest '.length), 'utf8')) as SupersetManifest;
        if (line.startsWith(ready)) {
          clearTimeout(timer);
          if (!manifest) reject(new Error(`Superset said it was ready without a manifest:\n${output.join('\n')}`));
          else resolve();
        }
      };
      createInterface({ input: started.stdout }).on('line', onLine);
      createInterface({ input: started.stderr }).on('line', onLine);
      started.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`Superset exited (${code ?? signal}) before it was ready:\n${output.slice(-60).join('\n')}`));
      });
    });

  const stop = async (graceMs = 15_000) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    killGroup(running, 'SIGTERM');
    const timer = setTimeout(() => killGroup(running, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    // gunicorn's master and worker are in the group too: make sure none outlives run.py.
    killGroup(running, 'SIGKILL');
  };

  try {
    await start();
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  return {
    get manifest() {
      return manifest!;
    },
    get url() {
      return manifest!.url;
    },
    stop,
    start,
    async dispose() {
      await stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * A server started outside this process (.ci/run starts one in the background beside the build,
 * `npm run superset` prints how): `EMBED_SUPERSET_MANIFEST` names its manifest.json, which run.py
 * writes once it is ready; this waits for it, and gives up early when `EMBED_SUPERSET_PID` (run.py)
 * has exited, with the end of `EMBED_SUPERSET_LOG`. Undefined when `EMBED_SUPERSET_MANIFEST` is unset.
 */
export async function supersetFromEnv(timeoutMs = 240_000): Promise<SupersetManifest | undefined> {
  const path = process.env.EMBED_SUPERSET_MANIFEST;
  if (!path) return undefined;
  const pid = Number(process.env.EMBED_SUPERSET_PID) || 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as SupersetManifest;
      if (process.env.EMBED_SUPERSET_URL && process.env.EMBED_SUPERSET_URL !== manifest.url) {
        throw new Error(`EMBED_SUPERSET_URL (${process.env.EMBED_SUPERSET_URL}) is not the URL of EMBED_SUPERSET_MANIFEST (${manifest.url})`);
      }
      return manifest;
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    }
    let alive: boolean;
    try {
      if (pid) process.kill(pid, 0);
      alive = true;
    } catch {
      alive = false;
    }
    if (!alive || Date.now() > deadline) {
      let log = '';
      try {
        log = readFileSync(process.env.EMBED_SUPERSET_LOG ?? '', 'utf8').slice(-6000);
      } catch {
        // no log to show
      }
      throw new Error(`The Superset of EMBED_SUPERSET_MANIFEST (${path}) ${alive ? `was not ready within ${timeoutMs} ms` : `exited (pid ${pid})`}:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The body of a chart-data request for a saved chart of the test dashboards, as the embedded frame sends it. */
export function chartDataRequest(manifest: SupersetManifest, chart: 'rows' | 'totals', dashboard: 'sales' | 'restricted' = 'sales') {
  const dataset = manifest.datasets.sales;
  const query = chart === 'rows' ? { columns: dataset.columns, metrics: [] as string[] } : { columns: ['customer_id'], metrics: ['total_amount'] };
  return {
    datasource: { id: dataset.id, type: 'table' },
    force: false,
    queries: [{ ...query, orderby: [], row_limit: 1000, filters: [], extras: { having: '', where: '' } }],
    form_data: {
      slice_id: manifest.charts[chart].id,
      dashboardId: manifest.dashboards[dashboard].id,
      viz_type: 'table',
      datasource: `${dataset.id}__table`,
    },
    result_format: 'json',
    result_type: 'full',
  };
}
