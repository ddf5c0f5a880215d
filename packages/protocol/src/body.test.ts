import { describe, expect, it } from 'vitest';
import { readAtMost } from './body.js';

/** A stream of these chunks that records whether it was cancelled and how many chunks were pulled. */
function chunked(chunks: number[]) {
  const seen = { pulled: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (i === chunks.length) return controller.close();
        seen.pulled += 1;
        controller.enqueue(new Uint8Array(chunks[i]!).fill(i + 1));
        i += 1;
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

describe('readAtMost', () => {
  it('joins the chunks in order into one array', async () => {
    const { stream } = chunked([2, 3, 1]);
    expect([...(await readAtMost(stream, 6))!]).toEqual([1, 1, 2, 2, 2, 3]);
  });

  it('reads an empty stream as zero bytes', async () => {
    expect((await readAtMost(chunked([]).stream, 10))!.byteLength).toBe(0);
  });

  it('answers undefined once past the limit, cancels the stream and reads no further', async () => {
    const { stream, seen } = chunked([4, 4, 4, 4]);
    expect(await readAtMost(stream, 7)).toBeUndefined();
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBe(2);
  });

  it('rejects with the stream error when the stream fails', async () => {
    const stream = new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(new Error('reset')) });
    await expect(readAtMost(stream, 10)).rejects.toThrow('reset');
  });
});
