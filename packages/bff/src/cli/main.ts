import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import { BFF_LISTENING_PREFIX } from '@embedded-dashboard/protocol';
import { createBffApp } from '../app.js';
import { createJsonLogger } from '../observability/logger.js';
import { createBffMetrics } from '../observability/prometheus.js';
import { createMetricsApp } from '../routes/metrics-routes.js';
import { createBffNodeListener } from '../http/node-listener.js';
import { createMemoryStore } from '../store/memory.js';
import type { TokenStore } from '../store/types.js';
import { appOptions, vendorOptions } from '../env/app-options.js';
import { redisSecrets } from '../env/redis-config.js';
import { CONFIG_KEYS, parseConfig, type CliConfig } from './env.js';

const USAGE = `usage: embedded-dashboard-bff [--config FILE]

Configured by environment variables (or the same keys in a JSON --config file; the environment wins):
  ${CONFIG_KEYS.join('\n  ')}
See the package README for their meaning and defaults.`;

const SHUTDOWN_GRACE_MS = 10_000;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

async function loadConfig(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<CliConfig | undefined> {
  let file: unknown;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      io.out(USAGE);
      return undefined;
    }
    const path = arg === '--config' ? argv[++i] : arg.startsWith('--config=') ? arg.slice('--config='.length) : undefined;
    if (path === undefined || path === '') {
      io.err(
        arg === '--config' || arg.startsWith('--config=') ? 'config: --config needs a FILE' : `config: unknown argument ${JSON.stringify(arg.slice(0, 64))}`,
      );
      io.err(USAGE);
      process.exitCode = 2;
      return undefined;
    }
    try {
      file = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      io.err(`config file: cannot read ${JSON.stringify(path)} as JSON (${(error as Error).message.split('\n')[0]})`);
      process.exitCode = 1;
      return undefined;
    }
  }
  const { config, problems } = parseConfig(env, file);
  for (const problem of problems) io.err(`config: ${problem}`);
  if (config === undefined) process.exitCode = 1;
  return config;
}

export async function openStore(config: CliConfig): Promise<TokenStore> {
  if (config.redisUrl === undefined) return createMemoryStore();
  // Loaded only when asked for, so the in-memory path never loads ioredis.
  const { createRedisStore } = await import('../store/redis/index.js');
  return createRedisStore({ url: config.redisUrl, ...config.redisTopology });
}

const formatUrl = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * The `embedded-dashboard-bff` process: validates its configuration (one line per problem,
 * exit 1), serves the BFF, prints `bff listening on http://HOST:PORT`, and on SIGTERM/SIGINT
 * stops accepting, finishes in-flight requests, closes the store and the client, and exits 0.
 */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io: CliIo = defaultIo): Promise<void> {
  const config = await loadConfig(argv, env, io);
  if (config === undefined) return;
  const options = appOptions(config, redisSecrets(config.redisUrl));
  // Only for the process's own lines; the app builds its logger (same secrets, same stdout).
  const logger = createJsonLogger({ secrets: options.secrets, level: config.logLevel });
  const vendor = vendorOptions(config);
  const client = vendor.upstream;
  const store = await openStore(config);
  const metrics = createBffMetrics();
  const app = createBffApp({ ...options, metrics, ...vendor, store });

  // Metrics get a listener of their own (loopback by default), never the public one.
  const metricsServer =
    config.metrics === undefined
      ? undefined
      : serve({ fetch: createMetricsApp(metrics).fetch, port: config.metrics.port, hostname: config.metrics.host }, (info: AddressInfo) => {
          logger.info('metrics listening', { url: `${formatUrl(config.metrics!.host, info.port)}/metrics` });
        });
  metricsServer?.once('error', (error: Error) => {
    io.err(`bff: cannot listen for metrics on ${config.metrics!.host}:${config.metrics!.port}: ${error.message}`);
    process.exit(1);
  });

  // Not serve(): its adapter answers a request it cannot parse (a bad Host) with a bare 400; this
  // listener gives that answer no-store and the error body too.
  const listener = createBffNodeListener(app, { hostname: config.host, logger });
  const server: Server = createServer((req, res) => void listener(req, res));
  server.listen(config.port, config.host, () => {
    io.out(`${BFF_LISTENING_PREFIX}${formatUrl(config.host, (server.address() as AddressInfo).port)}`);
  });
  server.once('error', (error) => {
    io.err(`bff: cannot listen on ${config.host}:${config.port}: ${error.message}`);
    process.exitCode = 1;
    client?.close();
    void store.close();
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down: finishing in-flight requests', { signal });
    const force = setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting', { graceMs: SHUTDOWN_GRACE_MS });
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    // Keep-alive connections become idle only after their in-flight response: keep closing them.
    const closeIdle = () => ('closeIdleConnections' in server ? server.closeIdleConnections() : undefined);
    const sweeper = setInterval(closeIdle, 50);
    metricsServer?.close();
    server.close(() => {
      clearInterval(sweeper);
      client?.close();
      void store.close().finally(() => {
        clearTimeout(force);
        logger.info('stopped', { signal });
        process.exitCode = 0;
      });
    });
    closeIdle();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
