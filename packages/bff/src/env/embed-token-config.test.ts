import { describe, expect, it } from 'vitest';
import { parseConfig } from '../cli/env.js';

const KEY = 'LEAKCHECK-cli-embed-key-32-bytes';
const minimal = {
  EMBED_UPSTREAM_URL: 'http://127.0.0.1:8790',
  EMBED_API_TOKEN: 'LEAKCHECK-cli-api-token-31c9',
  EMBED_SESSION_SECRET: 'cli-session-secret-0123456789abcdef-LEAKCHECK',
};

describe('parseConfig: embed tokens (EMBED_JWT_KEY_ID, EMBED_JWT_KEY, EMBED_DASHBOARDS, EMBED_JWT_MINT)', () => {
  it('leaves embed tokens off without EMBED_JWT_KEY_ID', () => {
    expect(parseConfig(minimal).config?.embedToken).toBeUndefined();
  });

  it('reads EMBED_DASHBOARDS without EMBED_JWT_KEY_ID as the dashboards of the timings reports (customer tokens)', () => {
    const { config, problems } = parseConfig({ ...minimal, EMBED_DASHBOARDS: 'sales-overview, ops' });
    expect(problems).toEqual([]);
    expect(config!.embedToken).toBeUndefined();
    expect(config!.timingDashboards).toEqual(['sales-overview', 'ops']);
  });

  it('reads the keys, from the environment or the config file', () => {
    expect(
      parseConfig({ ...minimal, EMBED_JWT_KEY_ID: 'aa11-bb22', EMBED_JWT_KEY: KEY, EMBED_DASHBOARDS: 'sales-overview, support_metrics' }).config?.embedToken,
    ).toEqual({
      keyId: 'aa11-bb22',
      key: KEY,
      dashboards: ['sales-overview', 'support_metrics'],
    });
    const fromFile = parseConfig({ ...minimal, EMBED_UPSTREAM_API: 'explo-customer' }, { EMBED_JWT_KEY_ID: 'k1', EMBED_JWT_KEY: KEY });
    expect(fromFile.problems).toEqual([]);
    expect(fromFile.config?.embedToken).toEqual({ keyId: 'k1', key: KEY });
  });

  it('reads EMBED_JWT_MINT=vendor with the Customer API, where the key may be left out', () => {
    const customerApi = { ...minimal, EMBED_UPSTREAM_API: 'explo-customer', EMBED_JWT_KEY_ID: 'k1' };
    expect(parseConfig({ ...customerApi, EMBED_JWT_MINT: 'vendor' })).toEqual({
      config: expect.objectContaining({ embedToken: { keyId: 'k1', mint: 'vendor' } }),
      problems: [],
    });
    expect(parseConfig({ ...customerApi, EMBED_JWT_MINT: 'vendor', EMBED_JWT_KEY: KEY }).config?.embedToken).toEqual({ keyId: 'k1', key: KEY, mint: 'vendor' });
    expect(parseConfig({ ...customerApi, EMBED_JWT_MINT: 'local', EMBED_JWT_KEY: KEY }).config?.embedToken).toEqual({ keyId: 'k1', key: KEY });
  });

  it('reads EMBED_DISABLE_EDITABLE_SECTION_EDITING (true or false) into embedToken.disableEditableSectionEditing', () => {
    const local = { ...minimal, EMBED_JWT_KEY_ID: 'k1', EMBED_JWT_KEY: KEY };
    expect(parseConfig({ ...local, EMBED_DISABLE_EDITABLE_SECTION_EDITING: 'true' }).config?.embedToken).toEqual({
      keyId: 'k1',
      key: KEY,
      disableEditableSectionEditing: true,
    });
    expect(parseConfig({ ...local, EMBED_DISABLE_EDITABLE_SECTION_EDITING: 'false' }).config?.embedToken).toMatchObject({
      disableEditableSectionEditing: false,
    });
    expect(parseConfig(local).config?.embedToken).not.toHaveProperty('disableEditableSectionEditing');
    for (const bad of ['yes', '1', 'TRUE', 'x'.repeat(5000)]) {
      expect(parseConfig({ ...local, EMBED_DISABLE_EDITABLE_SECTION_EDITING: bad }).problems).toEqual([
        expect.stringMatching(/^EMBED_DISABLE_EDITABLE_SECTION_EDITING must be true or false \(got ".{0,40}"\)$/),
      ]);
    }
    expect(parseConfig({ ...minimal, EMBED_DISABLE_EDITABLE_SECTION_EDITING: 'true' }).problems).toEqual([
      "EMBED_DISABLE_EDITABLE_SECTION_EDITING needs EMBED_JWT_KEY_ID (the embed secret's id): embed tokens are off without it",
    ]);
  });

  it.each([
    [
      'a mint that is neither local nor vendor',
      { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_KEY: KEY, EMBED_JWT_MINT: 'remote' },
      'EMBED_JWT_MINT must be local or vendor (got "remote")',
    ],
    ['the vendor mint with /api/user', { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_MINT: 'vendor' }, /EMBED_JWT_MINT=vendor needs EMBED_UPSTREAM_API=explo-customer/],
    ['a mint without a kid', { EMBED_UPSTREAM_API: 'explo-customer', EMBED_JWT_MINT: 'vendor' }, /EMBED_JWT_MINT needs EMBED_JWT_KEY_ID/],
    [
      'a key of 31 bytes with the vendor mint',
      { EMBED_UPSTREAM_API: 'explo-customer', EMBED_JWT_KEY_ID: 'k', EMBED_JWT_MINT: 'vendor', EMBED_JWT_KEY: KEY.slice(1) },
      /EMBED_JWT_KEY must be 32 bytes/,
    ],
    ['a key of 31 bytes', { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_KEY: KEY.slice(1) }, 'EMBED_JWT_KEY must be 32 bytes in UTF-8, the A256GCM key (value not shown)'],
    [
      'a key of 32 characters and 33 bytes',
      { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_KEY: `é${KEY.slice(1)}` },
      'EMBED_JWT_KEY must be 32 bytes in UTF-8, the A256GCM key (value not shown)',
    ],
    [
      'a key with surrounding spaces',
      { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_KEY: ` ${KEY} ` },
      'EMBED_JWT_KEY has leading or trailing whitespace (value not shown): remove it, secrets are used exactly as given',
    ],
    ['a kid with spaces', { EMBED_JWT_KEY_ID: 'key one', EMBED_JWT_KEY: KEY }, /EMBED_JWT_KEY_ID must be the embed secret id/],
    ['a kid of 129 characters', { EMBED_JWT_KEY_ID: 'k'.repeat(129), EMBED_JWT_KEY: KEY }, /EMBED_JWT_KEY_ID must be/],
    ['a kid without a key', { EMBED_JWT_KEY_ID: 'k' }, /EMBED_JWT_KEY is required/],
    ['a key without a kid', { EMBED_JWT_KEY: KEY }, /EMBED_JWT_KEY needs EMBED_JWT_KEY_ID/],
    ['customer tokens with dashboards that are not ids', { EMBED_DASHBOARDS: 'sales overview' }, /EMBED_DASHBOARDS must be a comma list of dashboard ids/],
    [
      'dashboards that are not ids',
      { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_KEY: KEY, EMBED_DASHBOARDS: 'sales-overview,sales overview,<x>' },
      /EMBED_DASHBOARDS must be a comma list of dashboard ids.*"sales overview", "<x>"/,
    ],
    ['an empty dashboard list', { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_KEY: KEY, EMBED_DASHBOARDS: ' , ' }, /EMBED_DASHBOARDS must be a comma list.*empty/],
    ['a token TTL of 0', { EMBED_JWT_KEY_ID: 'k', EMBED_JWT_KEY: KEY, EMBED_TOKEN_TTL: '0' }, /EMBED_TOKEN_TTL must be above 0 with EMBED_JWT_KEY_ID/],
  ])('refuses %s with one line naming the key, never the value', (_, env, message) => {
    const { config, problems } = parseConfig({ ...minimal, ...env });
    expect(config).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
    expect(problems.join('\n')).not.toContain(KEY.slice(10));
  });
});
