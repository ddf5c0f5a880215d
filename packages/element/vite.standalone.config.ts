import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { squeezeCssTemplates } from './build/squeeze-css.mjs';
import { squeezeLit } from './build/squeeze-lit.mjs';

/**
 * The standalone bundle: the element with Lit inside, for a plain `<script type="module">`.
 * `npm run build` writes dist/standalone/embedded-dashboard.js; its gzip budget is tested.
 */
/** Lit leaves `css` template text as written; squeeze its whitespace and comments for the bundle. */
const minifyCssTemplates = (): Plugin => ({
  name: 'minify-css-templates',
  transform(code, id) {
    if (!id.endsWith('.styles.ts')) return null;
    // Only the styles module changes, and only inside one string: no source map worth keeping.
    return { code: squeezeCssTemplates(code), map: { mappings: '' } };
  },
});

/** Cuts Lit code that cannot run in this bundle (see build/squeeze-lit.mjs). */
const squeezeLitBuild = (): Plugin => ({
  name: 'squeeze-lit',
  transform(code, id) {
    const cut = squeezeLit(id, code);
    return cut === undefined ? null : { code: cut, map: null };
  },
});

/**
 * One self-contained bundle per vendor entry, each its own build (a shared chunk would make a
 * page load two files): `vite build` the main entry (ours and Explo's protocols), `--mode
 * superset` the Superset entry, `--mode metabase` the Metabase entry. Their file names, and the entries they bundle.
 */
const STANDALONES: Readonly<Record<string, { file: string; entry: string }>> = {
  production: { file: 'embedded-dashboard.js', entry: './src/index.ts' },
  superset: { file: 'embedded-dashboard-superset.js', entry: './src/superset.ts' },
  metabase: { file: 'embedded-dashboard-metabase.js', entry: './src/metabase.ts' },
  // Not a vendor: the opt-in timings reporter, beside either script (no element, no Lit inside).
  timings: { file: 'embedded-dashboard-timings.js', entry: './src/timings.ts' },
  // Not a vendor either: the opt-in trace-context attribute (the traceparent of token requests).
  'trace-context': { file: 'embedded-dashboard-trace-context.js', entry: './src/trace-context.ts' },
};

/**
 * Beside the bundle as written: `integrity.json` (`{ "embedded-dashboard.js": "sha384-…" }`, its
 * subresource integrity, for `<script integrity>` and `renderElementScript({ integrity })`), and
 * the types of the `./standalone` export (the same exports as the package's main entry).
 */
const integrityManifest = (file: string, entry: string): Plugin => ({
  name: 'integrity-manifest',
  writeBundle(options) {
    const dir = options.dir!;
    const hash = createHash('sha384')
      .update(readFileSync(join(dir, file)))
      .digest('base64');
    // Each build adds its file to what an earlier build of the same run wrote.
    const manifest = join(dir, 'integrity.json');
    let known: Record<string, string> = {};
    try {
      known = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, string>;
    } catch {
      // The first build of the run.
    }
    writeFileSync(manifest, `${JSON.stringify({ ...known, [file]: `sha384-${hash}` }, null, 2)}\n`);
    writeFileSync(join(dir, file.replace(/\.js$/, '.d.ts')), `export * from '../${entry.slice('./src/'.length).replace(/\.ts$/, '.js')}';\n`);
  },
});

export default defineConfig(({ mode }) => {
  const { file, entry } = STANDALONES[mode] ?? STANDALONES.production!;
  return {
    plugins: [minifyCssTemplates(), squeezeLitBuild(), integrityManifest(file, entry)],
    mode: 'production',
    resolve: {
      // Lit's minified production build, whatever NODE_ENV the caller (e.g. vitest) runs under.
      conditions: ['module', 'browser', 'production'],
      alias: [
        {
          find: '@embedded-dashboard/protocol',
          replacement: fileURLToPath(new URL('../protocol/src/index.ts', import.meta.url)),
        },
      ],
    },
    logLevel: 'warn',
    build: {
      outDir: fileURLToPath(new URL('./dist/standalone', import.meta.url)),
      // The first build of a run empties the folder; the next adds its file.
      emptyOutDir: file === STANDALONES.production!.file,
      sourcemap: true,
      // Vite keeps whitespace and annotations in ES library builds; the budget counts every byte.
      // Terser after Rolldown's minifier: about 130 B less gzipped (three passes); `unsafe` inlines
      // the frozen-by-type constants (DashboardState) and `keep_fargs: false` drops unused
      // parameters (no code here reads a function's length): about 30 B more.
      // Terser takes seconds on a loaded machine; Rolldown's timing notice would be noise in tests.
      rolldownOptions: { output: { minify: true, comments: false }, checks: { pluginTimings: false } },
      minify: 'terser',
      terserOptions: {
        module: true,
        ecma: 2020,
        compress: { passes: 3, unsafe: true, unsafe_arrows: true, pure_getters: true, keep_fargs: false },
        format: { comments: false },
      },
      lib: {
        entry: fileURLToPath(new URL(entry, import.meta.url)),
        formats: ['es'],
        fileName: () => file,
      },
    },
  };
});
