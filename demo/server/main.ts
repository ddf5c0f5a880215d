/**
 * `npm start`: runs the demo until Ctrl-C. Environment: `DEMO_PORT` (default 5174, `0` picks a
 * free one), `DEMO_HOST` (default 127.0.0.1), `DEMO_SESSION_SECRET` (default: random per start),
 * `EMBED_TOKEN_TTL` (the BFF's token TTL in seconds, default 300), `DEMO_DASHBOARD_REFRESH` (how
 * often an open dashboard re-reads its data, in seconds, default 3); behind a proxy
 * `DEMO_PUBLIC_URL`, `DEMO_VENDOR_PUBLIC_URL` and `DEMO_EMULATOR_PORT`; `EMBED_SUPERSET_MANIFEST` (the
 * manifest `npm run superset` prints) embeds that real Apache Superset at `/superset` (demo/README.md).
 */
import { startDemo, type StartDemoOptions } from './start-demo.js';
import { supersetFromManifest } from './superset-demo.js';

const fail = (message: string): never => {
  console.error(`demo: ${message}`);
  process.exit(1);
};

function integerFromEnv(name: string, min: number, max: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) fail(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return value;
}

function readOptions(): StartDemoOptions {
  const options: StartDemoOptions = {
    port: integerFromEnv('DEMO_PORT', 0, 65_535) ?? 5174,
    host: process.env.DEMO_HOST || '127.0.0.1',
  };
  const ttl = integerFromEnv('EMBED_TOKEN_TTL', 0, 86_400);
  if (ttl !== undefined) options.tokenTtlSeconds = ttl;
  const refresh = integerFromEnv('DEMO_DASHBOARD_REFRESH', 1, 86_400);
  if (refresh !== undefined) options.dashboardRefreshSeconds = refresh;
  const emulatorPort = integerFromEnv('DEMO_EMULATOR_PORT', 0, 65_535);
  if (emulatorPort !== undefined) options.emulatorPort = emulatorPort;
  // Behind a TLS-terminating proxy (demo/README.md, "Behind a proxy").
  if (process.env.DEMO_PUBLIC_URL) options.publicUrl = process.env.DEMO_PUBLIC_URL;
  if (process.env.DEMO_VENDOR_PUBLIC_URL) options.vendorPublicUrl = process.env.DEMO_VENDOR_PUBLIC_URL;
  const secret = process.env.DEMO_SESSION_SECRET;
  if (secret !== undefined && secret !== '') {
    if (secret.length < 32) fail('DEMO_SESSION_SECRET must be at least 32 characters');
    options.sessionSecret = secret;
  }
  // Apache Superset as the second vendor: npm run superset's manifest (demo/README.md).
  if (process.env.EMBED_SUPERSET_MANIFEST) {
    try {
      options.superset = supersetFromManifest(process.env.EMBED_SUPERSET_MANIFEST);
    } catch (error) {
      fail((error as Error).message);
    }
  }
  return options;
}

async function main(): Promise<void> {
  const options = readOptions();
  const demo = await startDemo(options).catch((error: NodeJS.ErrnoException) =>
    fail(
      error.code === 'EADDRINUSE'
        ? `port ${options.port} (or DEMO_EMULATOR_PORT) is in use; set DEMO_PORT to another port, or 0 for a free one`
        : error.message,
    ),
  );
  console.log(`demo ready: ${demo.url}/`);
  console.log(`  the vendor (emulator) listens on ${demo.emulatorUrl}; press Ctrl-C to stop`);
  console.log(
    options.superset
      ? `  Apache Superset (${demo.supersetUrl}) is embedded at ${demo.url}/superset`
      : `  Apache Superset: the emulator's Superset mode (${demo.supersetUrl}) at ${demo.url}/superset; for a real one: npm run superset, then EMBED_SUPERSET_MANIFEST=… (demo/README.md)`,
  );

  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(130);
    stopping = true;
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    void demo.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
