import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Browser and Redis tests need binaries from the OS. Locally a missing binary skips those tests
 * with a loud warning; in CI (`CI=true`, as `.ci/run` runs) or with `EMBED_REQUIRE_TOOLS=1` a
 * missing binary fails the run instead, so a skip can never pass for a green build.
 */
export interface Tool {
  name: string;
  path: string;
  available: boolean;
}

const required = () => process.env.CI === 'true' || process.env.CI === '1' || process.env.EMBED_REQUIRE_TOOLS === '1';

const APT_PACKAGE: Record<string, string> = {
  'redis-server': 'redis-server',
  'redis-cli': 'redis-tools',
  script: 'bsdutils',
  'firefox-esr': 'firefox-esr',
  WebKitWebDriver: 'webkit2gtk-driver',
  MiniBrowser: 'webkit2gtk-driver',
  Xvfb: 'xvfb',
  nginx: 'nginx',
  openssl: 'openssl',
  certutil: 'libnss3-tools',
};

function findTool(
  name: string,
  candidates: string[],
  install = `apt-get install -y ${APT_PACKAGE[name] ?? 'chromium'}`,
  works: (path: string) => boolean = () => true,
): Tool {
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      if (works(path)) return { name, path, available: true };
    } catch {
      // try the next candidate
    }
  }
  const message = `${name} not found or not working (looked for ${candidates.join(', ')})`;
  if (required()) throw new Error(`${message}: it is required in CI; install it (see .ci/run)`);
  console.warn(`
*** SKIPPING ${name} tests: ${message}. Install it to run them (${install}). ***
`);
  return { name, path: '', available: false };
}

/** Debian's Chromium (or `CHROMIUM_PATH`). */
export const chromiumTool = (): Tool =>
  findTool('chromium', [process.env.CHROMIUM_PATH ?? '', '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean));

/** Debian's Firefox ESR (or `FIREFOX_PATH`), driven over WebDriver BiDi. */
export const firefoxTool = (): Tool => findTool('firefox-esr', [process.env.FIREFOX_PATH ?? '', '/usr/bin/firefox-esr', '/usr/bin/firefox'].filter(Boolean));

/** What the WebKit tests need: Debian's WebKitWebDriver, the MiniBrowser it drives, and Xvfb for its window. */
export interface WebKitTools extends Tool {
  minibrowser: string;
  xvfb: string;
}

/** WebKitGTK: `WebKitWebDriver` and MiniBrowser (package webkit2gtk-driver) and `Xvfb` (package xvfb); all three or none. */
export function webkitTools(): WebKitTools {
  const driver = findTool('WebKitWebDriver', [process.env.WEBKIT_WEBDRIVER_PATH ?? '', '/usr/bin/WebKitWebDriver'].filter(Boolean));
  const minibrowser = driver.available
    ? findTool(
        'MiniBrowser',
        [
          process.env.MINIBROWSER_PATH ?? '',
          '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
          '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
        ].filter(Boolean),
      )
    : driver;
  const xvfb = minibrowser.available ? findTool('Xvfb', ['/usr/bin/Xvfb']) : minibrowser;
  return { name: 'webkit', path: driver.path, available: xvfb.available, minibrowser: minibrowser.path, xvfb: xvfb.path };
}

/** Debian's redis-server (or `REDIS_SERVER_PATH`). */
export const redisServerTool = (): Tool =>
  findTool('redis-server', [process.env.REDIS_SERVER_PATH ?? '', '/usr/bin/redis-server', '/usr/local/bin/redis-server'].filter(Boolean));

/** Debian's redis-cli (package redis-tools, a dependency of redis-server; or `REDIS_CLI_PATH`): creates test clusters. */
export const redisCliTool = (): Tool =>
  findTool('redis-cli', [process.env.REDIS_CLI_PATH ?? '', '/usr/bin/redis-cli', '/usr/local/bin/redis-cli'].filter(Boolean));

/** Debian's nginx (or `NGINX_PATH`): the TLS-terminating proxy of test/topology. */
export const nginxTool = (): Tool => findTool('nginx', [process.env.NGINX_PATH ?? '', '/usr/sbin/nginx'].filter(Boolean));

/** Debian's openssl: makes test/topology's throwaway certificate authority. */
export const opensslTool = (): Tool => findTool('openssl', ['/usr/bin/openssl']);

/** NSS's `certutil` (package libnss3-tools): puts a test CA in a Firefox profile's certificate database. */
export const certutilTool = (): Tool => findTool('certutil', [process.env.CERTUTIL_PATH ?? '', '/usr/bin/certutil'].filter(Boolean));

/** util-linux's `script` (Debian package bsdutils): runs a command on a real pseudo-terminal. */
export const scriptTool = (): Tool => findTool('script', ['/usr/bin/script', '/bin/script']);

/**
 * Bun or Deno from this repository's devDependencies (npm packages whose postinstall puts the
 * binary from the registry in place). Without that postinstall, `bun` is a script that fails,
 * so the binary must answer `--version` to count.
 */
export const runtimeTool = (name: 'bun' | 'deno'): Tool =>
  findTool(
    name,
    [fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url))],
    'npm install: it is a devDependency, and package.json allowScripts lets its postinstall run',
    (path) => spawnSync(path, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0,
  );

/**
 * workerd, Cloudflare's Workers runtime, from the `workerd` npm package (a devDependency through
 * miniflare and wrangler; its binary comes in the registry's platform package, no download).
 */
export const workerdTool = (): Tool => {
  let path = '';
  try {
    path = (createRequire(import.meta.url)('workerd') as { default: string }).default;
  } catch {
    // not installed: reported below
  }
  return findTool(
    'workerd',
    [path].filter(Boolean),
    'npm install: miniflare and wrangler are devDependencies',
    (binary) => spawnSync(binary, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0,
  );
};
