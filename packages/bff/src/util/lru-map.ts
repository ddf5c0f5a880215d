/**
 * A `Map` bounded by entry count that evicts the least recently used entry. Reads refresh
 * recency by re-inserting, which keeps `Map`'s insertion order equal to recency order.
 */
export class LruMap<K, V> {
  readonly #map = new Map<K, V>();
  readonly #maxEntries: number;
  /** The most recently used key: a repeat hit on it needs no reordering (the hot path). */
  #newest: K | undefined;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined || key === this.#newest) return value;
    this.#map.delete(key);
    this.#map.set(key, value);
    this.#newest = key;
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    this.#newest = key;
    if (this.#map.size > this.#maxEntries) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.#map.delete(key);
    if (key === this.#newest) this.#newest = undefined;
  }

  clear(): void {
    this.#map.clear();
    this.#newest = undefined;
  }
}
