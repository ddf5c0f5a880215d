import { gzipSync } from 'node:zlib';
import { build as esbuild } from 'esbuild';
import { build, type Rolldown } from 'vite';
import { repoDir } from '../lib/paths.js';

/** Lit's packages, kept out of the "Lit external" build. */
const LIT = [/^lit(\/.*)?$/, /^lit-html(\/.*)?$/, /^lit-element(\/.*)?$/, /^@lit\//];

export interface BundleSize {
  minified: number;
  gzip: number;
  /** The bundled code, so callers can check it holds what they meant to measure. */
  code: string;
}

/**
 * Bundles `entry` with Vite 8's build API (Rolldown, library mode, ES module, minified by
 * Rolldown, comments dropped) and measures the result gzipped at level 9. Every SDK goes through
 * exactly this, so the sizes differ only by what each SDK pulls in.
 */
export async function bundleSize(entry: string, options: { externalLit?: boolean } = {}): Promise<BundleSize> {
  const result = await build({
    configFile: false,
    root: repoDir,
    logLevel: 'silent',
    mode: 'production',
    // Library mode leaves `process.env.NODE_ENV` alone; an application build would replace it.
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      write: false,
      minify: true,
      sourcemap: false,
      lib: { entry, formats: ['es'], fileName: 'entry' },
      // Vite keeps whitespace and comments in ES library builds; Rolldown's own minifier does not.
      rolldownOptions: { ...(options.externalLit ? { external: LIT } : {}), output: { minify: true, comments: false } },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const code = outputs
    .flatMap((output) => output.output)
    .map((file) => (file.type === 'chunk' ? file.code : typeof file.source === 'string' ? file.source : Buffer.from(file.source).toString()))
    .join('\n');
  return { minified: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length, code };
}

/**
 * What a bundler user pays for `source`, a module of their app (e.g. `import
 * '@embedded-dashboard/element';`): esbuild bundles it from the repository's node_modules as an
 * app's build would (our packages through their package.json `exports`, so their `dist/`; Lit's
 * production build; browser platform, ES module, minified), and the result is gzipped at level 9.
 */
export async function appBundleSize(source: string): Promise<BundleSize> {
  const result = await esbuild({
    stdin: { contents: source, resolveDir: repoDir, loader: 'js', sourcefile: 'app.js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    // The workspace's tsconfig.json maps our packages to their sources, and esbuild would follow it
    // for every file under the repository; an app has no such mapping.
    tsconfigRaw: '{}',
  });
  const code = result.outputFiles[0]!.text;
  return { minified: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length, code };
}
