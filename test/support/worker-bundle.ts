import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
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

/**
 * As wrangler bundles for `nodejs_compat`: Node built-ins stay imports the runtime provides, and a
 * CommonJS `require` of one (the OpenTelemetry context manager's `require("async_hooks")`) becomes
 * such an import.
 */
const nodejsCompatPlugin: Plugin = {
  name: 'nodejs-compat',
  setup(build) {
    build.onResolve({ filter: /.*/ }, ({ path, kind }) => {
      if (!NODE_BUILTINS.has(path)) return undefined;
      const name = path.replace(/^node:/, '');
      return kind === 'require-call' ? { path: name, namespace: 'node-require' } : { path: `node:${name}`, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'node-require' }, ({ path }) => ({
      contents: `import * as m from 'node:${path}'; module.exports = m;`,
      loader: 'js',
    }));
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
 * that nothing reachable from the entry needs Node; or, `nodejsCompat`, for a Worker with that
 * compatibility flag (Node built-ins from the runtime).
 */
export async function bundleWorker(entry: string, { nodejsCompat = false }: { nodejsCompat?: boolean } = {}): Promise<WorkerBundle> {
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
    // An entry outside the repository (a README's example written to a temporary file) resolves packages here.
    nodePaths: [fileURLToPath(new URL('../../node_modules', import.meta.url))],
    plugins: [nodejsCompat ? nodejsCompatPlugin : noNodeBuiltins],
  });
  const code = result.outputFiles[0]!.text;
  return { code, bytes: Buffer.byteLength(code), gzipBytes: gzipSync(code, { level: 9 }).byteLength, inputs: Object.keys(result.metafile.inputs) };
}
