import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.js';

describe('parseArgs', () => {
  it("defaults to starting with admin off and the vendor's rate limit", () => {
    expect(parseArgs([])).toEqual({ command: { kind: 'start', options: { admin: false, rateLimitPerMinute: 180 } }, problems: [] });
  });

  it('reads --rate-limit, 0 meaning no limit, and refuses what is not a count', () => {
    expect(parseArgs(['--rate-limit', '0']).command).toEqual({ kind: 'start', options: { admin: false, rateLimitPerMinute: 0 } });
    expect(parseArgs(['--rate-limit=1800']).command).toEqual({ kind: 'start', options: { admin: false, rateLimitPerMinute: 1800 } });
    expect(parseArgs(['--rate-limit', '1800', '--rate-limit-burst', '180']).command).toEqual({
      kind: 'start',
      options: { admin: false, rateLimitPerMinute: 1800, rateLimitBurst: 180 },
    });
    expect(parseArgs(['--rate-limit', '0', '--rate-limit-burst', '5']).problems).toEqual([
      '--rate-limit-burst must be at least 1, with a --rate-limit above 0',
    ]);
    for (const bad of ['-1', '1.5', 'lots', '1000001']) {
      expect(parseArgs(['--rate-limit', bad]).problems).toEqual([`--rate-limit must be an integer from 0 to 1000000, got ${JSON.stringify(bad)}`]);
    }
  });

  it('reads every flag, in both --flag value and --flag=value forms', () => {
    const { command, problems } = parseArgs([
      '--port',
      '0',
      '--host=0.0.0.0',
      '--api-key',
      'k1:Customer',
      '--api-key=k:2:Testing',
      '--data',
      'x.json',
      '--token-ttl',
      '60',
      '--rotation-grace=5',
      '--embed-origin',
      'http://localhost:*',
      '--embed-origin',
      'https://app.example.com',
      '--admin',
      '--dashboard-refresh',
      '2',
      '--rate-limit',
      '60',
    ]);
    expect(problems).toEqual([]);
    expect(command).toEqual({
      kind: 'start',
      options: {
        admin: true,
        port: 0,
        host: '0.0.0.0',
        apiKeys: [
          { token: 'k1', environment: 'Customer' },
          { token: 'k:2', environment: 'Testing' },
        ],
        dataFile: 'x.json',
        tokenTtlSeconds: 60,
        rotationGraceSeconds: 5,
        embedOrigins: ['http://localhost:*', 'https://app.example.com'],
        dashboardRefreshSeconds: 2,
        rateLimitPerMinute: 60,
      },
    });
  });

  it('answers help before anything else', () => {
    expect(parseArgs(['--port', 'x', '--help']).command).toEqual({ kind: 'help' });
  });

  it('collects one line per problem', () => {
    const { command, problems } = parseArgs([
      '--port',
      '99999',
      '--token-ttl',
      '-1',
      '--rotation-grace',
      '1.5',
      '--api-key',
      'nokind',
      '--api-key',
      'k:Prod',
      '--api-key',
      ':Customer',
      '--embed-origin',
      'localhost',
      '--bogus',
      '--data',
      '--admin=yes',
      '--host',
    ]);
    expect(command).toBeUndefined();
    expect(problems).toEqual([
      expect.stringContaining('unknown argument "--bogus"'),
      '--data needs a value',
      '--admin takes no value',
      '--host needs a value',
      expect.stringContaining('--port must be an integer from 0 to 65535'),
      expect.stringContaining('--token-ttl must be an integer'),
      expect.stringContaining('--rotation-grace must be an integer'),
      expect.stringContaining('--api-key must be TOKEN:ENV'),
      expect.stringContaining('--api-key must be TOKEN:ENV'),
      expect.stringContaining('--api-key must be TOKEN:ENV'),
      expect.stringContaining('--embed-origin must be an origin'),
    ]);
  });

  it('refuses a dashboard refresh of zero or a fraction', () => {
    expect(parseArgs(['--dashboard-refresh', '0']).problems).toEqual(['--dashboard-refresh must be at least 1']);
    expect(parseArgs(['--dashboard-refresh', '0.5']).problems).toEqual([expect.stringContaining('--dashboard-refresh must be an integer')]);
  });

  it('refuses repeated single flags and repeated keys', () => {
    expect(parseArgs(['--port', '1', '--port', '2']).problems).toEqual(['--port given more than once']);
    expect(parseArgs(['--api-key', 'k:Customer', '--api-key', 'k:Testing']).problems).toEqual(['--api-key repeats a TOKEN']);
  });

  it('reads --embed-secret ID:VALUE (repeatable; the value may hold colons and is 32 bytes in UTF-8)', () => {
    const colons = 'a:b:c'.padEnd(32, 'x');
    const accented = 'é'.repeat(16);
    expect(parseArgs(['--embed-secret', `key-1:${colons}`, `--embed-secret=aa11-bb22:${accented}`]).command).toEqual({
      kind: 'start',
      options: {
        admin: false,
        rateLimitPerMinute: 180,
        embedSecrets: [
          { id: 'key-1', value: colons },
          { id: 'aa11-bb22', value: accented },
        ],
      },
    });
  });

  it.each([
    ['no colon', 'x'.repeat(32), /ID:VALUE/],
    ['an empty id', `:${'x'.repeat(32)}`, /ID:VALUE/],
    ['an id with a space', `a b:${'x'.repeat(32)}`, /ID:VALUE/],
    ['a 31-byte value', `k:${'s3cr3t'.repeat(5)}x`, /32 bytes/],
    ['a value of 32 characters but 33 bytes', `k:é${'s3cr3t'.repeat(5)}x`, /32 bytes/],
  ])('refuses an --embed-secret with %s, never repeating the value', (_, spec, message) => {
    const { problems } = parseArgs(['--embed-secret', spec]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
    expect(problems[0]).not.toContain('s3cr3t');
  });

  it('refuses an --embed-secret ID given twice', () => {
    expect(parseArgs(['--embed-secret', `k:${'x'.repeat(32)}`, '--embed-secret', `k:${'y'.repeat(32)}`]).problems).toEqual(['--embed-secret repeats the ID k']);
  });
});
