import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Sources the packages' builds leave out (tsconfig.build.json `exclude`): tests and ambient declarations (test support lives outside src/, in each package's test/support/). */
const notBuilt = (path: string) => /\.test\.ts$|\.test-d\.ts$|\.d\.ts$/.test(path);

/**
 * Tests of what integrators run (the CLI, a bundled Worker) use the packages' dist/: refuse to
 * test a build older than its sources (each built source against its own output). `packages` are
 * workspace folder names.
 */
export function assertFreshBuild(...packages: string[]): void {
  for (const name of packages) {
    const src = join(root, 'packages', name, 'src');
    const dist = join(root, 'packages', name, 'dist');
    if (!existsSync(dist)) throw new Error(`packages/${name}/dist is missing: run \`npm run build\` first (npm test does)`);
    const check = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          check(path);
          continue;
        }
        const file = relative(src, path);
        if (!file.endsWith('.ts') || notBuilt(file)) continue;
        const output = join(dist, file.replace(/\.ts$/, '.js'));
        if (!existsSync(output) || statSync(output).mtimeMs < statSync(path).mtimeMs) {
          throw new Error(`packages/${name}/dist is older than src (${file}): run \`npm run build\` first`);
        }
      }
    };
    check(src);
  }
}
