// The linter: ESLint with typescript-eslint's type-aware rules (the project's own tsconfig.json,
// through the project service), run by `npm run lint` and `npm test`, in one thread: each thread
// builds the whole program again (two threads: 36 s and 59 s of CPU alone on two cores, one: 30 s
// and 41 s; .ci/run runs it beside tsc and prettier, where the CPU is the limit). Style is prettier's
// (`npm run format`); this catches mistakes, floating and misused promises above all.
// Every rule turned off or eased here says why.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TESTS = ['**/*.test.ts', '**/test/**/*.ts', 'test/**/*.ts', 'bench/**/*.test.ts'];

export default tseslint.config(
  {
    // Examples and the packaging fixtures are integrators' projects, each linted by nothing of
    // ours (they are built and run by test/packaging); dist/ and declaration files are generated.
    ignores: ['**/node_modules/**', '**/dist/**', 'examples/**', 'test/packaging/fixtures/**', 'test-results/**', '**/*.d.ts', '**/*.d.mts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['packages/element/vite.standalone.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Off: the async methods that do not await implement Promise-returning interfaces (the
      // memory store, no-op metrics); `async` is what turns their throws into rejections, which
      // those interfaces promise their callers.
      '@typescript-eslint/require-await': 'off',
      // Off: our APIs hand functions around as values by design (closures from factories such as
      // createRedisStore, connectRedis, the emulator's route tables). The classes whose methods do
      // use `this` keep their state in `#private` fields, which throw a TypeError at once when
      // called unbound, so the mistake this rule guards against cannot pass silently.
      '@typescript-eslint/unbound-method': 'off',
      // Rejecting with an AbortSignal's `reason` (typed `any`) is the platform's own pattern.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // A leading underscore marks a parameter kept for its position (a platform stub's signature).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // An event interface that only names its detail type (`interface X extends CustomEvent<D> {}`)
      // is how HTMLElementEventMap entries get a name of their own.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // Tests read response bodies, messages and logs as untyped JSON to assert on them (a wrong
    // field fails the assertion anyway) and stub with `any`: the `no-unsafe-*` family would ask a
    // cast on every line of them. Product code keeps every one of these rules.
    files: TESTS,
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests stringify what a mock was called with (an unknown body) to parse it back.
      '@typescript-eslint/no-base-to-string': 'off',
      // Tests run an inline script's exact text, as the browser would, through `Function`.
      '@typescript-eslint/no-implied-eval': 'off',
      // The CLI's progress bar is asserted with its terminal escapes (ESC [K).
      'no-control-regex': 'off',
    },
  },
  {
    // Plain JavaScript (build scripts, bins, configs) runs on Node and has no types to lint with.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
);
