/**
 * The layer order of docs/ARCHITECTURE.md §2 and §2.1, kept by a tool (`npm run check:layers`,
 * part of `npm test`): which package may import which, and inside each package which folder or
 * file may import which. A layer imports only the layers below it (or its own); nothing imports
 * in a circle; product code (a package's `src/`, tests aside) never imports test support.
 * A failing rule names the import: `error layer-bff-…: packages/bff/src/a.ts → packages/bff/src/b.ts`.
 */

/** Each package's own dependencies among ours (its package.json), and nothing else. */
const PACKAGE_DEPENDENCIES = {
  protocol: [],
  client: ['protocol'],
  emulator: ['protocol'],
  bff: ['protocol', 'client'],
  element: ['protocol'],
  react: ['protocol', 'element'],
  vite: ['client', 'emulator', 'bff'],
};

/**
 * A vendor is a folder of these names in a package's `src/`, in every package alike (ARCHITECTURE
 * §2.1): it imports shared layers only, never another vendor's folder (rule vendor-folders-apart).
 * A new vendor adds its name here and its folders; it touches no other vendor's files.
 */
const VENDOR_FOLDERS = ['explo', 'superset', 'metabase'];
/** The emulator's Explo routes predate the seam and are spread over shared-looking folders. */
const EMULATOR_EXPLO = ['api', 'dashboard-host', 'embed', 'store', 'admin', 'rate-limit'];

/**
 * Each package's layers, top first: a layer is a list of top-level names under `src/` (a folder
 * or a file). A file in a layer imports only from its own layer or the ones after it.
 */
const LAYERS = {
  bff: [
    ['index.ts', 'cli', 'lambda', 'workers'],
    // Configuration, step 1: environment text -> options (ARCHITECTURE §2.1); the page helpers.
    ['env', 'page'],
    ['app.ts'],
    ['routes'],
    // Step 4: the wired runtime; step 3: resolved settings; step 2: the options' types.
    ['runtime.ts'],
    ['settings.ts'],
    ['options.ts'],
    // The vendors' adapters, each a folder of its own over the seam (`vendor/`, below); Explo's
    // embed tokens are `explo/embed-token/`, its user groups still `customer-token/` (below).
    VENDOR_FOLDERS,
    // The vendor seam: what an adapter is, and the shared layers it is built on.
    ['vendor'],
    ['session-rate-limit'],
    ['caller'],
    ['session'],
    ['customer-token'],
    ['circuit-breaker'],
    ['store'],
    ['vendor-budget'],
    ['platform'],
    ['http'],
    // Templates over session claims (Superset's row-level security, Metabase's locked parameters).
    ['claim-template'],
    ['errors'],
    ['observability', 'util'],
  ],
  // `client/` and `api/` are Explo's user group calls; each other vendor's calls are a folder of VENDOR_FOLDERS.
  client: [['index.ts'], ['client', ...VENDOR_FOLDERS], ['validation'], ['platform', 'api', 'concurrency'], ['transport'], ['errors']],
  emulator: [
    ['index.ts', 'cli'],
    ['server.ts'],
    ['emulator.ts'],
    // A vendor mode is a folder of its own (superset/, …): beside Explo's routes, never importing them.
    ['options.ts', 'admin', 'api', 'dashboard-host', ...VENDOR_FOLDERS],
    ['embed', 'faults', 'rate-limit', 'store', 'sample-data'],
    ['http'],
  ],
  element: [
    // The entry points: each registers its protocols (the main one ours and Explo's); timings.ts
    // adds the opt-in timings reporter to whichever element is defined, trace-context.ts the
    // opt-in traceparent of token requests.
    ['index.ts', 'explo.ts', 'superset.ts', 'metabase.ts', 'timings.ts', 'trace-context.ts'],
    // How an opt-in module defines its property on whichever element is defined.
    ['opt-in'],
    // A vendor's frame protocol (src/<name>/) and the define helper: above the core, which names
    // no vendor; a vendor imports only the shared layers below (vendor-folders-apart).
    [...VENDOR_FOLDERS, 'define.ts'],
    // The timings reporter reads the element's state and events, as the element's class does.
    ['embedded-dashboard.ts', 'timings'],
    ['frame'],
    ['events.ts'],
    ['protocol', 'view', 'strings', 'token', 'embedded-dashboard.styles.ts'],
    ['state.ts'],
  ],
  protocol: [['index.ts']],
  react: [['index.ts']],
  vite: [['index.ts']],
};

const TEST = '\\.test(-d)?\\.ts$';
const escape = (name) => name.replace(/[.]/g, '\\.');
const names = (layer) => `(${layer.map((name) => escape(name) + (name.endsWith('.ts') ? '$' : '/')).join('|')})`;

const layerRules = Object.entries(LAYERS).flatMap(([pkg, layers]) =>
  layers.slice(1).map((layer, index) => ({
    name: `layer-${pkg}-${layer.join('+')}`,
    comment: `packages/${pkg}/src: ${layer.join(', ')} import only what lies below them (docs/ARCHITECTURE.md §2.1)`,
    severity: 'error',
    from: { path: `^packages/${pkg}/src/${names(layer)}`, pathNot: TEST },
    to: { path: `^packages/${pkg}/src/${names(layers.slice(0, index + 1).flat())}` },
  })),
);

const packageRules = Object.entries(PACKAGE_DEPENDENCIES).map(([pkg, allowed]) => ({
  name: `package-${pkg}`,
  comment: `@embedded-dashboard/${pkg} imports only ${allowed.length ? allowed.join(', ') : 'none'} of our packages (its package.json)`,
  severity: 'error',
  from: { path: `^packages/${pkg}/src/`, pathNot: TEST },
  to: { path: '^packages/', pathNot: `^packages/(${[pkg, ...allowed].join('|')})/src/` },
}));

/**
 * The emulator's vendor modes: each folder imports only the shared layers (faults, http, sample-data) and its
 * own files, never Explo's folders nor the emulator's top (options.ts, emulator.ts, server.ts).
 */
const EMULATOR_SHARED = ['faults', 'http', 'sample-data'];
const emulatorVendorRules = [
  {
    name: 'vendor-emulator-shared-only',
    comment: `packages/emulator/src/<vendor>/ imports only ${EMULATOR_SHARED.join(', ')} and itself (docs/ARCHITECTURE.md §7)`,
    severity: 'error',
    from: { path: `^packages/emulator/src/(${VENDOR_FOLDERS.join('|')})/`, pathNot: TEST },
    to: { path: '^packages/emulator/src/', pathNot: `^packages/emulator/src/($1|${EMULATOR_SHARED.join('|')})/` },
  },
  {
    name: 'vendor-emulator-explo',
    comment: "The emulator's Explo folders never import a vendor mode's folder.",
    severity: 'error',
    from: { path: `^packages/emulator/src/(${EMULATOR_EXPLO.join('|')})/`, pathNot: TEST },
    to: { path: `^packages/emulator/src/(${VENDOR_FOLDERS.join('|')})/` },
  },
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle in product code.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/', pathNot: TEST },
      to: { circular: true, pathNot: TEST },
    },
    {
      name: 'no-test-support-in-src',
      comment: "Product code never imports test support (each package's test/support/, the repository's test/).",
      severity: 'error',
      from: { path: '^packages/[^/]+/src/', pathNot: TEST },
      to: { path: '^(packages/[^/]+/test/|test/|bench/|demo/)' },
    },
    {
      name: 'vendor-folders-apart',
      comment: `A vendor's folder (src/<vendor>/ in any package: ${VENDOR_FOLDERS.join(', ')}) imports only shared layers, never another vendor's folder: adding a vendor touches no other vendor's files.`,
      severity: 'error',
      // `$1`/`$2` in `to` are the package and vendor `from` matched: any vendor folder but the importer's own.
      from: { path: `^packages/([^/]+)/src/(${VENDOR_FOLDERS.join('|')})/`, pathNot: TEST },
      to: { path: `^packages/$1/src/(${VENDOR_FOLDERS.join('|')})/`, pathNot: '^packages/$1/src/$2/' },
    },
    ...packageRules,
    ...layerRules,
    ...emulatorVendorRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    // Type-only imports count: a layer that needs another's type depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { conditionNames: ['import', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
