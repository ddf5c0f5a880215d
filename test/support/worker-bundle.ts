import { builtinModules } from 'node:module';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

/** Every name Node resolves to a built-in module, with and without `node:`. */
const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

/** Fails the bundle at the first import of a Node built-in, naming the module that made it. */
const noNodeBuiltins: Plugin = {
  name: 'no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, ({ path, importer }) =>
      NODE_BUILTINS.has(path) || path.startsWith('node:')
        ? { errors: [{ text: `Node built-in "${path}" imported by ${importer}: nothing on a Worker's request path may need Node` }] }
        : undefined,
    );
  },
};

export interface WorkerBundle {
  /** The bundled module (ES module, one file). */
  code: string;
  /** Its size in bytes, and gzipped (Cloudflare's limits count the compressed size). */
  bytes: number;
  gzipBytes: number;
  /** Every file bundled (paths relative to the repository). */
  inputs: string[];
}

/**
 * Bundles a Worker entry the way wrangler does (esbuild; conditions `workerd`, `worker`,
 * `browser`; `cloudflare:*` left to the runtime), with every Node built-in an error: the proof
 * that nothing reachable from the entry needs Node.
 */
export async function bundleWorker(entry: string): Promise<WorkerBundle> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*'],
    minify: true,
    // As an integrator's bundler: through node_modules, not this repository's tsconfig paths to the sources.
    tsconfigRaw: {},
    logLevel: 'silent',
    metafile: true,
    plugins: [noNodeBuiltins],
  });
  const code = result.outputFiles[0]!.text;
  return { code, bytes: Buffer.byteLength(code), gzipBytes: gzipSync(code, { level: 9 }).byteLength, inputs: Object.keys(result.metafile.inputs) };
}
