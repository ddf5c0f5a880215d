/**
 * Setup of every test project: what code under test writes straight to `process.stderr` goes
 * through `console.error` instead, so vitest attributes it to its test and the quiet reporter
 * (test/support/quiet-reporter.ts) sees it like any other warning.
 */
const ROUTED = Symbol.for('embedded-dashboard.stderr-to-console');
const stderr = process.stderr as NodeJS.WriteStream & { [ROUTED]?: true };

if (!stderr[ROUTED]) {
  const original = stderr.write.bind(stderr) as (...args: unknown[]) => boolean;
  let inside = false;
  stderr.write = function write(chunk: string | Uint8Array, ...rest: unknown[]): boolean {
    // Should a console ever write to process.stderr itself, let that through untouched.
    if (inside) return original(chunk, ...rest);
    inside = true;
    try {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      console.error(text.endsWith('\n') ? text.slice(0, -1) : text);
    } finally {
      inside = false;
    }
    rest.find((arg): arg is () => void => typeof arg === 'function')?.();
    return true;
  };
  stderr[ROUTED] = true;
}
