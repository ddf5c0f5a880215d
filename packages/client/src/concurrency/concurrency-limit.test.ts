import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from './concurrency-limit.js';

describe('ConcurrencyLimit', () => {
  it('grants up to its size and queues the rest in order', async () => {
    const slots = new ConcurrencyLimit(2);
    const signal = new AbortController().signal;
    const a = await slots.acquire(signal);
    await slots.acquire(signal);
    const order: string[] = [];
    const c = slots.acquire(signal).then((release) => (order.push('c'), release));
    const d = slots.acquire(signal).then((release) => (order.push('d'), release));
    expect(slots.inUse).toBe(2);
    expect(slots.waiting).toBe(2);
    a();
    a(); // a second release of the same slot must not free another
    (await c)();
    await d;
    expect(order).toEqual(['c', 'd']);
    expect(slots.inUse).toBe(2);
  });

  it('drops an aborted waiter without losing its slot', async () => {
    const slots = new ConcurrencyLimit(1);
    const release = await slots.acquire(new AbortController().signal);
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(slots.waiting).toBe(0);
    release();
    expect(slots.inUse).toBe(0);
    await expect(slots.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
