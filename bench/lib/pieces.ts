import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoDir } from './paths.js';
import { NotAvailable } from './row.js';

/**
 * The built CLI of a workspace package, found through its package.json `bin`, as `npx` would.
 * A package that has not landed or not been built yet makes the bench that needs it say n/a.
 */
export function packageBin(folder: string, binName: string): string {
  const manifestPath = join(repoDir, 'packages', folder, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: Record<string, string> | string };
  const relative = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[binName];
  if (!relative) throw new NotAvailable(`packages/${folder} declares no "${binName}" CLI yet`);
  const script = join(repoDir, 'packages', folder, relative);
  if (!existsSync(script)) throw new NotAvailable(`packages/${folder}/${relative} is missing (package not built?)`);
  return script;
}
