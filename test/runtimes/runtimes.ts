import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runtimeTool } from '../support/tools.js';

/** A JavaScript runtime the BFF and emulator CLIs are promised to run under. */
export interface Runtime {
  name: 'node' | 'bun' | 'deno';
  /** The command and its arguments before the script (`deno run -A script.js`). */
  command: string[];
  available: boolean;
}

/**
 * What the CLIs need from Deno: their environment, the network (listen; the vendor, Redis, the
 * JWKS URL), reading their own files and `--config`, and the OS facts Node's APIs report. The
 * emulator's `--data FILE` needs `--allow-write` as well. The README documents exactly these.
 */
export const DENO_PERMISSIONS = ['--allow-env', '--allow-net', '--allow-read', '--allow-sys'];

/**
 * Node (this process's), and Bun and Deno from the repository's devDependencies. A missing Bun
 * or Deno skips its cases loudly, and fails in CI (test/support/tools.ts).
 */
export function runtimes(): Runtime[] {
  const bun = runtimeTool('bun');
  const deno = runtimeTool('deno');
  return [
    { name: 'node', command: [process.execPath], available: true },
    { name: 'bun', command: [bun.path], available: bun.available },
    { name: 'deno', command: [deno.path, 'run', ...DENO_PERMISSIONS], available: deno.available },
  ];
}

/**
 * The installed command of a package, by the path an integrator's project has it at (the
 * README's runtime commands); it runs `dist/`, built by `npm test`.
 */
export function packageBin(pkg: 'bff' | 'emulator'): string {
  const bin = fileURLToPath(new URL(`../../node_modules/@embedded-dashboard/${pkg}/bin/embedded-dashboard-${pkg}.js`, import.meta.url));
  const dist = fileURLToPath(new URL(`../../packages/${pkg}/dist/cli/bin.js`, import.meta.url));
  if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`npm run build\` first (npm test does)`);
  return bin;
}
