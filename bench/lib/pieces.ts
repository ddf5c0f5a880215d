import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoDir } from './paths.js';
import { NotAvailable } from './row.js';

/**
 * The built CLI of a workspace package, found through its package.json `bin` as `npx` would
 * (or its `dist/cli.js` while no `bin` is declared). A package that has not landed or not been
 * built yet makes the bench that needs it say n/a.
 */
export function packageBin(folder: string, binName: string): string {
  const manifest = JSON.parse(readFileSync(join(repoDir, 'packages', folder, 'package.json'), 'utf8')) as { bin?: Record<string, string> | string };
  const relative = (typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[binName]) ?? 'dist/cli.js';
  const script = join(repoDir, 'packages', folder, relative);
  if (!existsSync(script))
    throw new NotAvailable(`packages/${folder}/${relative.replace(/^\.\//, '')} (the ${binName} CLI) is missing: not landed or not built`);
  return script;
}
