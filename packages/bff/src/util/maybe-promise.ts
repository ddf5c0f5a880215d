/** A value now, or a promise of it later: what a step on the hot path returns. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Runs `next` on `value` at once when it is already there, else when its promise resolves.
 * Chaining the steps of a token request with it keeps a fully cached request free of awaits
 * (each await costs a turn of the microtask queue), while an uncached step simply waits.
 */
export const andThen = <T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> =>
  value instanceof Promise ? value.then(next) : next(value);
