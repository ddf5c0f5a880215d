/**
 * Debian's nginx as the TLS-terminating reverse proxy in front of the topology's apps: started by
 * the test on ports it picks (one per browser engine, each with the same named hosts in front of
 * that engine's apps), with its own prefix, config, pid file, logs and temp dirs under the
 * run's temporary directory (never the system's /etc/nginx, /var/log/nginx or /run), in one
 * process (`master_process off`, `daemon off`) that the test stops by its pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Certificates } from './certificates.js';

/**
 * What the proxy tells the app behind it, in every `location`: the host the browser asked for,
 * and the scheme and host[:port] it used. The BFF README's "Behind a proxy" quotes these lines
 * (a test checks), so what it recommends is what the topology runs.
 */
export const PROXY_HEADERS = `proxy_set_header Host $host;
proxy_set_header X-Forwarded-Proto $scheme;
proxy_set_header X-Forwarded-Host $http_host;
proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;`;

export interface NginxSite {
  /** The `server_name` (a named host of the topology). */
  host: string;
  /** Where it proxies to: `127.0.0.1:upstreamPort`, plain HTTP. */
  upstreamPort: number;
}

/** One TLS port on 127.0.0.1 and the sites served there (one per browser engine, see hosts.ts). */
export interface NginxListener {
  port: number;
  sites: readonly NginxSite[];
}

export interface RunningNginx {
  stop(): Promise<void>;
}

/** A host served with a certificate of another CA than the topology's, answering `UNTRUSTED_PAGE` itself. */
export interface UntrustedSite {
  host: string;
  certificates: Certificates;
}

/** What the untrusted host answers: a browser that shows it accepted a certificate it was not told to trust. */
export const UNTRUSTED_PAGE = 'served with a certificate of another CA';

const serverBlocks = (
  { port, sites }: NginxListener,
  untrusted: UntrustedSite | undefined,
): string => `  # An unknown name is refused, as a production proxy's default server does.
  server {
    listen 127.0.0.1:${port} ssl http2 default_server;
    return 421;
  }
${
  untrusted
    ? `  server {
    listen 127.0.0.1:${port} ssl http2;
    server_name ${untrusted.host};
    ssl_certificate ${untrusted.certificates.chainPath};
    ssl_certificate_key ${untrusted.certificates.keyPath};
    location / {
      default_type text/html;
      return 200 '<p>${UNTRUSTED_PAGE}</p>';
    }
  }
`
    : ''
}${sites
  .map(
    (site) => `  server {
    listen 127.0.0.1:${port} ssl http2;
    server_name ${site.host};
    location / {
      proxy_pass http://127.0.0.1:${site.upstreamPort};
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
${PROXY_HEADERS.split('\n')
  .map((line) => `      ${line}`)
  .join('\n')}
    }
  }`,
  )
  .join('\n')}`;

const configFor = (
  prefix: string,
  listeners: readonly NginxListener[],
  certificates: Certificates,
  untrusted: UntrustedSite | undefined,
  rootUser: boolean,
): string => `# Written by test/topology/nginx.ts for one test run.
${rootUser ? 'user root;\n' : ''}daemon off;
master_process off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 512; }
http {
  log_format combined_host '$host $status "$request"';
  access_log ${prefix}/access.log combined_host;
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  ssl_certificate ${certificates.chainPath};
  ssl_certificate_key ${certificates.keyPath};
  ssl_protocols TLSv1.2 TLSv1.3;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
${listeners.map((listener) => serverBlocks(listener, untrusted)).join('\n')}
}
`;

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts nginx on each listener's port on 127.0.0.1 (and `untrusted` on each), with its files under `prefix` (a fresh directory). */
export async function startNginx(
  executable: string,
  prefix: string,
  listeners: readonly NginxListener[],
  certificates: Certificates,
  untrusted?: UntrustedSite,
): Promise<RunningNginx> {
  for (const dir of ['tmp/body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi']) mkdirSync(join(prefix, dir), { recursive: true });
  // As root, nginx would switch to "nobody", who cannot read the run's private temporary directory.
  const config = configFor(prefix, listeners, certificates, untrusted, process.getuid?.() === 0);
  const configPath = join(prefix, 'nginx.conf');
  writeFileSync(configPath, config);
  const child: ChildProcess = spawn(executable, ['-p', prefix, '-c', configPath, '-e', join(prefix, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errorLog = () => {
    try {
      return readFileSync(join(prefix, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}) before it listened:\n${output.join('')}\n${errorLog()}`);
    }
    if ((await Promise.all(listeners.map(({ port }) => canConnect(port)))).every(Boolean)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not listen on 127.0.0.1:${listeners.map(({ port }) => port).join(', ')} within 15 s:\n${output.join('')}\n${errorLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { stop };
}
