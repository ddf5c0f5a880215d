import { execFileSync } from 'node:child_process';
import { repoDir } from './paths.js';

/** The commit the bench runs on (`git rev-parse --short HEAD`), `+dirty` with uncommitted changes; `unknown` without git. */
export function gitCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoDir, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoDir, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return 'unknown';
  }
}
