import { accessSync, constants } from 'node:fs';

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

function findTool(name: string, candidates: string[]): Tool {
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return { name, path, available: true };
    } catch {
      // try the next candidate
    }
  }
  const message = `${name} not found (looked for ${candidates.join(', ')})`;
  if (required()) throw new Error(`${message}: it is required in CI; install it (see .ci/run)`);
  const aptPackage = { 'redis-server': 'redis-server', 'redis-cli': 'redis-tools' }[name] ?? 'chromium';
  console.warn(`\n*** SKIPPING ${name} tests: ${message}. Install it to run them (apt-get install -y ${aptPackage}). ***\n`);
  return { name, path: '', available: false };
}

/** Debian's Chromium (or `CHROMIUM_PATH`). */
export const chromiumTool = (): Tool =>
  findTool('chromium', [process.env.CHROMIUM_PATH ?? '', '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean));

/** Debian's redis-server (or `REDIS_SERVER_PATH`). */
export const redisServerTool = (): Tool =>
  findTool('redis-server', [process.env.REDIS_SERVER_PATH ?? '', '/usr/bin/redis-server', '/usr/local/bin/redis-server'].filter(Boolean));

/** Debian's redis-cli (package redis-tools, a dependency of redis-server; or `REDIS_CLI_PATH`): creates test clusters. */
export const redisCliTool = (): Tool =>
  findTool('redis-cli', [process.env.REDIS_CLI_PATH ?? '', '/usr/bin/redis-cli', '/usr/local/bin/redis-cli'].filter(Boolean));
