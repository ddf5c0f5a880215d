import { describe, expect, it } from 'vitest';
import { isMetabaseResourceId, isMetabaseSecret, isMetabaseSlug } from './embed.js';
import { parseMetabaseFrameMessage } from './frame-messages.js';
import { metabaseFrameUrl, metabaseHash, parseMetabaseHash } from './frame-url.js';

describe('Metabase guest embed wire', () => {
  it('takes a 64-hex-character embedding secret only', () => {
    expect(isMetabaseSecret('a'.repeat(64))).toBe(true);
    expect(isMetabaseSecret('0123456789ABCDEF'.repeat(4))).toBe(true);
    for (const bad of ['a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), ` ${'a'.repeat(63)}`, 64, null, { length: 64 }]) {
      expect(isMetabaseSecret(bad)).toBe(false);
    }
  });

  it('names an item by a positive integer id or a 21-character entity id', () => {
    expect(isMetabaseResourceId(7)).toBe(true);
    expect(isMetabaseResourceId('aB3_-aB3_-aB3_-aB3_-a')).toBe(true);
    for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, '7', 'short', '../../../../../../../a', null, [7]]) {
      expect(isMetabaseResourceId(bad)).toBe(false);
    }
  });

  it('takes slugs as Metabase writes them', () => {
    expect(isMetabaseSlug('customer_id')).toBe(true);
    for (const bad of ['Customer', 'a-b', '', '_x', '__proto__', 'a b', 'x'.repeat(101), 3]) expect(isMetabaseSlug(bad)).toBe(false);
  });

  it('writes and reads the hash options the frame acts on', () => {
    const hash = metabaseHash({
      bordered: false,
      titled: true,
      theme: 'night',
      refresh: 60,
      hide_parameters: ['region', 'product'],
      background: false,
      font: 'Open Sans',
      downloads: ['pdf'],
      locale: 'pt_BR',
    });
    expect(hash).toBe(
      '#bordered=false&titled=true&theme=night&refresh=60&hide_parameters=region,product&background=false&font=Open%20Sans&downloads=pdf&locale=pt_BR',
    );
    expect(parseMetabaseHash(hash)).toEqual({
      bordered: false,
      titled: true,
      theme: 'night',
      refresh: 60,
      hide_parameters: ['region', 'product'],
      background: false,
      font: 'Open Sans',
      downloads: ['pdf'],
      locale: 'pt_BR',
    });
    expect(metabaseHash({})).toBe('');
  });

  it.each([
    [{ theme: 'dark' }, /theme/],
    [{ refresh: 0 }, /refresh/],
    [{ refresh: 1.5 }, /refresh/],
    [{ bordered: 'yes' }, /bordered/],
    [{ hide_parameters: ['a&b=c'] }, /hide_parameters/],
    [{ downloads: ['csv'] }, /downloads/],
    [{ locale: 'en&theme=night' }, /locale/],
    [{ font: 'x#y' }, /font/],
  ])('refuses to write %j', (options, message) => {
    expect(() => metabaseHash(options as never)).toThrow(message);
  });

  it('ignores hash values the frame does not understand', () => {
    expect(parseMetabaseHash('#theme=dark&refresh=-1&bordered=1&locale=%&hide_parameters=A,b&__proto__=x&unknown=1')).toEqual({
      hide_parameters: ['b'],
    });
  });

  it('builds the frame URL with editable parameters in the query and options in the hash', () => {
    expect(
      metabaseFrameUrl('https://mb.example.com/', 'dashboard', 'a.b.c', { params: { region: ['north', 'south'], year: 2024 }, hash: { titled: true } }),
    ).toBe('https://mb.example.com/embed/dashboard/a.b.c?region=north&region=south&year=2024#titled=true');
    expect(metabaseFrameUrl('https://mb.example.com', 'question', 't')).toBe('https://mb.example.com/embed/question/t');
    expect(() => metabaseFrameUrl('https://mb.example.com', 'question', 't', { params: { 'a&b': 'x' } })).toThrow(/slug/);
  });

  it('reads the frame and location messages and nothing else', () => {
    expect(parseMetabaseFrameMessage({ metabase: { type: 'frame', frame: { mode: 'normal', height: 812 } } })).toEqual({
      metabase: { type: 'frame', frame: { mode: 'normal', height: 812 } },
    });
    expect(parseMetabaseFrameMessage({ metabase: { type: 'location', location: { href: 'https://mb/embed/x#a', hash: '#a', extra: 'y', port: 3 } } })).toEqual({
      metabase: { type: 'location', location: { href: 'https://mb/embed/x#a', hash: '#a' } },
    });
    for (const bad of [
      null,
      'metabase',
      { metabase: null },
      { metabase: { type: 'frame' } },
      { metabase: { type: 'frame', frame: { mode: 'wide', height: 10 } } },
      { metabase: { type: 'frame', frame: { mode: 'fit', height: '10' } } },
      { metabase: { type: 'frame', frame: { mode: 'fit', height: Number.NaN } } },
      { metabase: { type: 'frame', frame: { mode: 'fit', height: -1 } } },
      { metabase: { type: 'frame', frame: { mode: 'fit', height: 1e9 } } },
      { metabase: { type: 'location', location: 'x' } },
      { metabase: { type: 'other' } },
      Object.create({ metabase: { type: 'frame', frame: { mode: 'fit', height: 1 } } }),
    ]) {
      expect(parseMetabaseFrameMessage(bad)).toBeUndefined();
    }
  });
});
