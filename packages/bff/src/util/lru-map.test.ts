import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('evicts the least recently used entry, counting repeated reads of the newest', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.get('a');
    lru.get('a');
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('forgets deleted and cleared entries', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.delete('a');
    expect(lru.get('a')).toBeUndefined();
    lru.set('b', 2);
    lru.clear();
    expect(lru.size).toBe(0);
  });

  it('keeps a re-read entry after its key was deleted and set again', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.delete('a');
    lru.set('b', 2);
    lru.set('a', 3);
    lru.get('b');
    lru.set('c', 4);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.get('b')).toBe(2);
  });
});
