import { describe, expect, it } from 'vitest';
import { json, mount, ORIGIN, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../../test/support/fixtures.js';

useElementTestEnvironment();

const button = { event: 'exportClicked', detail: { customerName: 'Acme Corp', customerProvidedId: 'acme' } };
const analytics = {
  event: 'analyticsEventFired',
  detail: { user_id: '', name: 'Dashboard Page Viewed', properties: { customer_name: 'Acme Corp' }, custom_properties: {} },
};
const customs = (m: Mounted) => m.events.filter((e) => e.type === 'dashboard-custom-event').map((e) => e.detail as unknown);

async function shown(attributes: Record<string, string> = {}) {
  stubFetch(json(tokenBody(600)));
  const m = await mount(attributes);
  await settle(m.el);
  return m;
}

const PROTOCOLS: Record<string, Record<string, string>> = {
  message: {},
  explo: { protocol: 'explo', 'src-template': `${ORIGIN}/iframe/{dashboard}/{token}` },
  'explo-jwt': { protocol: 'explo-jwt', 'src-template': `${ORIGIN}/iframe/{token}` },
};

describe('<embedded-dashboard> dashboard-custom-event', () => {
  for (const [protocol, attributes] of Object.entries(PROTOCOLS)) {
    it(`re-dispatches a JS Event Button's event and analyticsEventFired, bubbling and composed (${protocol})`, async () => {
      const m = await shown(attributes);
      const heard: Event[] = [];
      document.addEventListener('dashboard-custom-event', (e) => heard.push(e));
      m.fromFrame(button);
      m.fromFrame(analytics);
      expect(customs(m)).toEqual([
        { name: 'exportClicked', detail: button.detail },
        { name: 'analyticsEventFired', detail: analytics.detail },
      ]);
      expect(heard).toHaveLength(2);
      expect(heard[0]).toMatchObject({ bubbles: true, composed: true });
    });
  }

  it('gives each listener a copy, never the posted object', async () => {
    const m = await shown();
    m.fromFrame(button);
    expect(customs(m)[0]).toEqual({ name: 'exportClicked', detail: button.detail });
    expect((customs(m)[0] as { detail: object }).detail).not.toBe(button.detail);
  });

  it('ignores messages from another window or another origin', async () => {
    const m = await shown();
    m.fromFrame(button, { source: window });
    m.fromFrame(button, { source: null });
    m.fromFrame(button, { origin: 'https://evil.example' });
    m.fromFrame(button, { origin: 'null' });
    m.fromFrame(button, { origin: `${ORIGIN}:443` });
    expect(customs(m)).toEqual([]);
  });

  it('never turns a lifecycle event, well formed or not, into a custom event (each protocol its own names)', async () => {
    const m = await shown();
    for (const event of ['dashboardReadyToLoad', 'dashboardLoaded', 'dashboardResized', 'tokenExpired', 'variableUpdated'])
      m.fromFrame({ event, detail: { broken: true } });
    expect(customs(m)).toEqual([]);
    const explo = await shown(PROTOCOLS.explo);
    for (const event of ['dashboardUpdated', 'sendVariableUpdatedEvent', 'customerJwtExpired', 'dashboardLoaded'])
      explo.fromFrame({ event, detail: { broken: true } });
    expect(customs(explo)).toEqual([]);
    // Our own protocol's names are no vendor lifecycle event: the explo frame's are its own events.
    explo.fromFrame({ event: 'dashboardResized', detail: { dashboardHeight: 5 } });
    expect(customs(explo)).toEqual([{ name: 'dashboardResized', detail: { dashboardHeight: 5 } }]);
  });

  it('ignores hostile details: huge, deep, cyclic, non-JSON, prototype keys; and unknown shapes, without throwing', async () => {
    const m = await shown();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const deep = (n: number): unknown => (n ? [deep(n - 1)] : 0);
    for (const detail of [
      'x'.repeat(40_000),
      Array.from({ length: 5 }, () => 'y'.repeat(8000)),
      deep(20),
      cyclic,
      new Date(),
      new Map(),
      { at: new Date() },
      { n: NaN },
      JSON.parse('{"__proto__":{"polluted":1}}') as unknown,
      { a: { constructor: 1 } },
    ])
      m.fromFrame({ event: 'exportClicked', detail });
    for (const data of [null, undefined, 'exportClicked', 7, [], { detail: {} }, { event: '' }, { event: 'x'.repeat(201) }, { event: {} }]) m.fromFrame(data);
    expect(customs(m)).toEqual([]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(m.el.problem).toBeUndefined();
  });
});
