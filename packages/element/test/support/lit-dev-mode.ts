/**
 * Setup of the element tests. They run Lit's development build on purpose: its warnings (an
 * update scheduled after an update, a misused property) reach the test output, and a green run
 * must print none (test/support/quiet-reporter.ts). The one notice that is no warning, "Lit is in
 * dev mode", is marked as already issued, which is how Lit lets a page opt out of a warning.
 */
const lit = globalThis as { litIssuedWarnings?: Set<string | undefined> };
(lit.litIssuedWarnings ??= new Set()).add('dev-mode');
