/**
 * Small AbortSignal plumbing. Timers are plain `setTimeout` (not `AbortSignal.timeout`) so tests
 * with fake timers control them and so each can be cleared the moment its call settles.
 */

/** A controller that aborts when any of `signals` does; `dispose()` unhooks it. */
export function linkedController(signals: ReadonlyArray<AbortSignal | undefined>): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  const hooks: Array<() => void> = [];
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    hooks.push(() => signal.removeEventListener('abort', onAbort));
  }
  return { controller, dispose: () => hooks.forEach((unhook) => unhook()) };
}

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts, so an
 * injected transport or sleep that ignores its signal cannot hold a call past its deadline.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The default `sleep`: resolves after `ms`, rejects with `signal.reason` on abort. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Calls an injected function (transport, sleep): its synchronous throw becomes a rejection. */
export function invoke<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
