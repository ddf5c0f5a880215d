import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The standalone bundle: the element with Lit inside, for a plain `<script type="module">`.
 * `npm run build` writes dist/standalone/embedded-dashboard.js; its gzip budget is tested.
 */
export default defineConfig({
  resolve: {
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
    emptyOutDir: true,
    sourcemap: true,
    // Vite keeps whitespace and annotations in ES library builds; the budget counts every byte.
    rolldownOptions: { output: { minify: true, comments: false } },
    lib: {
      entry: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
      formats: ['es'],
      fileName: () => 'embedded-dashboard.js',
    },
  },
});
