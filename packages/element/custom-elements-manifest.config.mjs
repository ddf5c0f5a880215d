// Configuration of `cem analyze` (npm run build:manifest), read from this directory.
export default {
  litelement: true,
  globs: ['src/**/*.ts'],
  exclude: ['src/**/*.test.ts'],
  outdir: '.',
  plugins: [
    {
      // The analyzer lists modules in the order the file system returns them, which differs between
      // machines and clones: sort them by path so the manifest is the same wherever it is built.
      name: 'modules-in-path-order',
      packageLinkPhase({ customElementsManifest }) {
        customElementsManifest.modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      },
    },
  ],
};
