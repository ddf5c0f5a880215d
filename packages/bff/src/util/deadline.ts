/** `setImmediate` where the runtime has it (Node, Bun, Deno), else the next macrotask (Workers, browsers). */
const afterIo: (callback: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (callback) => void globalThis.setImmediate(callback) : (callback) => void setTimeout(callback, 0);

/**
 * Settles like `work(signal)`, or rejects with `onTimeout()` (aborting `signal`) once `ms` have
 * passed **and** the process has read what its sockets received meanwhile: when the timer fires,
 * the verdict waits one more turn of the event loop (`setImmediate` runs after the loop has read
 * its sockets), so an answer that arrived in time settles the call first.
 *
 * Node runs due timers before it reads sockets. Timed with a bare timer, a process whose loop was
 * busy for longer than `ms` (a long synchronous task, a CPU-starved machine) blames its own lag on
 * a healthy store: under load that skipped Redis for seconds (the hung-store bypass), and the
 * processes of a fleet then called the vendor for groups another process was already fetching.
 */
export function withSocketDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, onTimeout: () => unknown): Promise<T> {
  const abort = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
    };
    const timer = setTimeout(() => {
      afterIo(() =>
        settle(() => {
          abort.abort();
          reject(onTimeout());
        }),
      );
    }, ms);
    new Promise<T>((run) => run(work(abort.signal))).then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
