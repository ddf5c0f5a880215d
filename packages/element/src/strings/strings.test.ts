import { describe, expect, it } from 'vitest';
import { json, mount, settle, stubFetch, useElementTestEnvironment } from '../../test/support/fixtures.js';
import { de, en, fr, type DashboardStrings } from './index.js';

useElementTestEnvironment();

const texts = (el: HTMLElement) => ({
  status: el.shadowRoot!.querySelector('[part="status"]')!.textContent,
  button: el.shadowRoot!.querySelector('button')?.textContent,
});

describe('strings', () => {
  it('every built-in language has every text, none empty, none left in English', () => {
    const keys = Object.keys(en).sort();
    for (const strings of [de, fr] satisfies DashboardStrings[]) {
      expect(Object.keys(strings).sort()).toEqual(keys);
      for (const key of keys as (keyof DashboardStrings)[]) {
        expect(strings[key].trim()).not.toBe('');
        if (key !== 'ready' && key !== 'refreshing') expect(strings[key]).not.toBe(en[key]);
      }
    }
  });

  it('shows and announces German texts, the retry button included, when given de', async () => {
    stubFetch(json({ error: { code: 'unauthenticated', message: 'session expired', retryable: false } }, 401));
    const m = await mount();
    m.el.strings = de;
    await m.el.updateComplete;
    expect(texts(m.el).status).toBe('Dashboard wird geladen…');
    await settle(m.el);
    expect(m.el.state).toBe('unauthenticated');
    expect(texts(m.el)).toEqual({ status: de.unauthenticated, button: 'Erneut versuchen' });
    expect(m.el.shadowRoot!.querySelector('slot[name="error"] p')!.textContent).toBe(de.unauthenticated);
    // The event stays for developers, in English, with the BFF's own message.
    expect(m.events.at(-1)!.detail).toMatchObject({ code: 'unauthenticated', message: 'session expired' });
  });

  it('shows the localized error text, not the BFF message, for a refusal; English by default', async () => {
    stubFetch(json({ error: { code: 'forbidden', message: 'origin https://x is not allowed', retryable: false } }, 403));
    const m = await mount();
    await settle(m.el);
    expect(texts(m.el)).toEqual({ status: en.error, button: 'Retry' });
    m.el.strings = { ...fr, error: 'Indisponible.' };
    await m.el.updateComplete;
    expect(texts(m.el)).toEqual({ status: 'Indisponible.', button: 'Réessayer' });
  });
});

describe('iframe pass-through attributes', () => {
  it('passes sandbox and loading to the iframe when given, and adds neither otherwise', async () => {
    stubFetch(json({ error: { code: 'forbidden', message: 'no', retryable: false } }, 403));
    const plain = await mount();
    expect(plain.frame.hasAttribute('sandbox')).toBe(false);
    expect(plain.frame.hasAttribute('loading')).toBe(false);
    const given = await mount({ sandbox: 'allow-scripts allow-same-origin', loading: 'lazy' });
    expect(given.frame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');
    expect(given.frame.getAttribute('loading')).toBe('lazy');
  });

  it("gives the iframe allow 'fullscreen' by default, and the element's allow (attribute or property) instead", async () => {
    stubFetch(json({ error: { code: 'forbidden', message: 'no', retryable: false } }, 403));
    expect((await mount()).frame.getAttribute('allow')).toBe('fullscreen');
    expect((await mount({ allow: 'fullscreen; clipboard-write' })).frame.getAttribute('allow')).toBe('fullscreen; clipboard-write');
    // Empty: no permission at all, not the default.
    expect((await mount({ allow: '' })).frame.getAttribute('allow')).toBe('');
    const hostile = `"><script>alert(1)</script>`;
    const byProperty = await mount();
    byProperty.el.allow = hostile;
    await byProperty.el.updateComplete;
    expect(byProperty.frame.getAttribute('allow')).toBe(hostile);
    expect(byProperty.el.shadowRoot!.querySelector('script')).toBeNull();
  });
});
