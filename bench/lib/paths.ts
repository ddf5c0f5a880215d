import { fileURLToPath } from 'node:url';

/*
 * Bench sources compile to bench/dist/bench/<same path> (test/support to bench/dist/test/support);
 * this file runs as bench/dist/bench/lib/paths.js. Plain files the bench reads (size entries)
 * stay in the source tree.
 */

/** The `bench/` folder of the source tree. */
export const benchDir = fileURLToPath(new URL('../../../', import.meta.url));

/** The repository root. */
export const repoDir = fileURLToPath(new URL('../../../../', import.meta.url));

/** A compiled bench script, e.g. `distScript('throughput/bare-server.js')`. */
export const distScript = (relative: string): string => fileURLToPath(new URL(`../${relative}`, import.meta.url));

/** Scratch space (git-ignored): process logs. */
export const scratchDir = fileURLToPath(new URL('../../../.tmp/', import.meta.url));
