#!/usr/bin/env node
// `npm run superset [-- --port 8088 --allowed-domain http://localhost:5173 ...]`: the project's real
// Apache Superset 6.1.0 for the demo, by hand, on 127.0.0.1 until Ctrl-C. The same script as the
// tests (test/support/superset/run.py: the project's superset_config.py, a SQLite data source with
// rows for several customers, two embedded dashboards), in a temporary directory removed at exit.
// It prints the URL and the dashboards' UUIDs; the service account's credentials and the guest
// secret stay in the manifest file it names (mode 600), which tests and the demo read through
// EMBED_SUPERSET_MANIFEST. The venv: EMBED_SUPERSET_VENV, default ~/.cache/embedded-dashboard/superset-6.1.0.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const venv = process.env.EMBED_SUPERSET_VENV || join(homedir(), '.cache', 'embedded-dashboard', 'superset-6.1.0');
const python = join(venv, 'bin', 'python');
const runScript = fileURLToPath(new URL('../test/support/superset/run.py', import.meta.url));

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: npm run superset [-- --port N] [--allowed-domain ORIGIN]... [--restricted-domain ORIGIN]... [--guest-token-seconds N]');
  process.exit(0);
}
const allowed = new Set(['--port', '--allowed-domain', '--restricted-domain', '--guest-token-seconds']);
for (let i = 0; i < args.length; i += 2) {
  if (!allowed.has(args[i]) || args[i + 1] === undefined) {
    console.error(`superset: unknown or incomplete option ${args[i]} (see --help)`);
    process.exit(1);
  }
}
try {
  accessSync(python, constants.X_OK);
} catch {
  console.error(`superset: no Superset venv at ${venv} (EMBED_SUPERSET_VENV). Install it with:
  python3 -m venv ${venv} && ${venv}/bin/pip install -r test/support/superset/requirements.txt`);
  process.exit(1);
}

const home = mkdtempSync(join(tmpdir(), 'embed-superset-'));
const portGiven = args.includes('--port');
const child = spawn(python, [runScript, 'serve', '--home', home, ...(portGiven ? [] : ['--port', '8088']), ...args], {
  detached: true,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let manifestPath = '';
createInterface({ input: child.stdout }).on('line', (line) => {
  if (line.startsWith('superset manifest ')) {
    manifestPath = line.slice('superset manifest '.length);
    return;
  }
  if (line.startsWith('superset listening on ')) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const boards = Object.entries(manifest.dashboards)
      .map(([name, board]) => `  ${name}: ${board.uuid} (allowed domains: ${board.allowedDomains.join(', ') || 'any'})`)
      .join('\n');
    console.log(`Superset ${manifest.version} listening on ${manifest.url} (ready in ${manifest.startupSeconds} s)
embedded dashboards:
${boards}
customers: ${[...new Set(manifest.rows.map((row) => row.customer_id))].join(', ')}
credentials (service account, guest secret and audience): ${manifestPath}
  export EMBED_SUPERSET_MANIFEST=${manifestPath}
Ctrl-C stops it.`);
    return;
  }
  console.log(line);
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
child.on('exit', (code) => {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
  rmSync(home, { recursive: true, force: true });
  process.exit(stopping ? 0 : (code ?? 1));
});
