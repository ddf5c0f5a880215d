import { INITIAL_TOKEN_HEADERS, renderDashboardFrame } from '@embedded-dashboard/bff';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_ID, fourMMarkup } from './page-server.js';
import { aheadTokenJson, PAGE_FEATURES, parseFeatures, variantPage } from './variant-page.js';

const EMULATOR = 'http://127.0.0.1:4100';
const TOKEN = 'QEF5p_EGrJvqWxL3SASGL8wsZ2NrV5Uq';
const JSON_CHILD = `<script type="application/json">{"token":"${TOKEN}","expiresAt":2,"serverTime":1}</script>`;
const inputs = fourMMarkup.variantInputs(EMULATOR);

describe('variant pages (from the baseline to 4m, one feature at a time)', () => {
  it('with no feature is the baseline page', () => {
    const page = variantPage(inputs, new Set());
    expect(page.head + page.body(TOKEN, JSON_CHILD)).toBe(fourMMarkup.baselinePage(EMULATOR, TOKEN));
    expect(page.stream).toBe(false);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(fourMMarkup.baselinePage(EMULATOR, TOKEN)).toContain(`<iframe src="${EMULATOR}/iframe/${DASHBOARD_ID}?token=${TOKEN}" title="dashboard"></iframe>`);
  });

  it("with every feature is 4m's page as the page server makes it, streamed with the first token's headers", () => {
    const page = variantPage(inputs, new Set(PAGE_FEATURES));
    const template = `${EMULATOR}/iframe/{dashboard}#token={token}`;
    const frame = renderDashboardFrame({ dashboard: DASHBOARD_ID, srcTemplate: template, token: TOKEN, visible: true });
    expect(page.head).toBe(fourMMarkup.lateHead(EMULATOR));
    expect(page.body(TOKEN, JSON_CHILD)).toBe(fourMMarkup.oursOpen(template, frame) + fourMMarkup.oursClose(JSON_CHILD));
    expect(page.stream).toBe(true);
    expect(page.headers).toMatchObject(INITIAL_TOKEN_HEADERS);
  });

  it('changes only what each feature names', () => {
    const none = variantPage(inputs, new Set());
    const body = (features: string) => variantPage(inputs, parseFeatures(features)).body(TOKEN, JSON_CHILD);
    expect(body('fragment')).toBe(none.body(TOKEN, JSON_CHILD).replace('?token=', '#token='));
    expect(variantPage(inputs, parseFeatures('preconnect')).head).toBe(
      none.head.replace(
        "</script>\n<script>addEventListener('message'",
        `</script>\n<link rel="preconnect" href="${EMULATOR}">\n<script>addEventListener('message'`,
      ),
    );
    expect(body('attrs')).toContain(`title="${DASHBOARD_ID}" allow="fullscreen" referrerpolicy="strict-origin"`);
    expect(body('wrap')).toContain(`<embedded-dashboard dashboard="${DASHBOARD_ID}"`);
    expect(body('wrap')).toContain(JSON_CHILD);
    expect(body('attrs')).not.toContain(JSON_CHILD);
    // A loader without the element's tag: the page cannot wait for an element that is not there.
    const loaderOnly = variantPage(inputs, parseFeatures('loader')).head;
    expect(loaderOnly).toContain("document.createElement('script')");
    expect(loaderOnly).toContain('loaded()');
    expect(loaderOnly).not.toContain('dashboard-load');
  });

  it('refuses an unknown feature and a token that is not one', () => {
    expect(() => parseFeatures('wrap,frgment')).toThrow('unknown page feature(s): frgment');
    expect(parseFeatures(null).size).toBe(0);
    expect(() => aheadTokenJson('"><script>')).toThrow('not a user group token');
    expect(aheadTokenJson(TOKEN, 1000)).toBe(`<script type="application/json">{"token":"${TOKEN}","expiresAt":601000,"serverTime":1000}</script>`);
  });
});
