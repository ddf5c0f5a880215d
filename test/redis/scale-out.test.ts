import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisServerTool } from '../support/tools.js';
import {
  emulatorStats,
  groupNameOf,
  groupPropertiesOf,
  readiness,
  requestRotation,
  requestToken,
  sessionFor,
  sessionWith,
  startFleet,
  type Fleet,
  type TokenAnswer,
} from './fleet.js';

const tool = redisServerTool();

const GROUPS = 40;
const REQUESTS_PER_GROUP = 10;

/**
 * Sends REQUESTS_PER_GROUP token requests for each of GROUPS new customers, all at once,
 * alternating between the two BFF processes, and returns the answers per customer.
 */
async function burst(fleet: Fleet, prefix: string): Promise<Map<string, TokenAnswer[]>> {
  const orgs = Array.from({ length: GROUPS }, (_, i) => `${prefix}-${i}`);
  const sessions = await Promise.all(orgs.map(sessionFor));
  const calls = orgs.flatMap((org, g) =>
    Array.from({ length: REQUESTS_PER_GROUP }, (_, r) => requestToken(fleet.bffs[(g + r) % 2]!, sessions[g]!).then((answer) => ({ org, answer }))),
  );
  const answers = new Map<string, TokenAnswer[]>(orgs.map((org) => [org, []]));
  for (const { org, answer } of await Promise.all(calls)) answers.get(org)!.push(answer);
  return answers;
}

const expectOneTokenPerGroup = (answers: Map<string, TokenAnswer[]>) => {
  const tokens = new Set<string>();
  for (const [org, list] of answers) {
    expect(
      list.map((a) => a.status),
      org,
    ).toEqual(Array(REQUESTS_PER_GROUP).fill(200));
    const distinct = new Set(list.map((a) => a.token));
    expect(distinct.size, `${org} got different tokens`).toBe(1);
    tokens.add(list[0]!.token!);
  }
  expect(tokens.size).toBe(answers.size);
};

const waitUntilReady = (fleet: Fleet) =>
  vi.waitFor(async () => expect(await Promise.all(fleet.bffs.map(readiness))).toEqual([200, 200]), { timeout: 15_000, interval: 100 });

// The tests run in order against one fleet: shared caching, shared rotation, Redis down, Redis back.
describe.skipIf(!tool.available)('two BFF processes sharing one Redis', { timeout: 60_000 }, () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet(tool.path);
    await waitUntilReady(fleet);
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it(`calls the vendor once per customer for a burst of ${GROUPS * REQUESTS_PER_GROUP} first visits split across both`, async () => {
    const before = await emulatorStats(fleet.emulator);
    const answers = await burst(fleet, 'first');
    const after = await emulatorStats(fleet.emulator);
    expectOneTokenPerGroup(answers);
    expect(after.getOrCreate - before.getOrCreate).toBe(GROUPS);
    expect(after.update - before.update).toBe(0);
  });

  it('rotates once for concurrent rotations through both, and both answer the new token', async () => {
    const session = await sessionFor('rotating-org');
    const first = await requestToken(fleet.bffs[0], session);
    expect(first.status).toBe(200);
    const held = first.token!;
    // The other process hands out the same cached token before any rotation.
    expect((await requestToken(fleet.bffs[1], session)).token).toBe(held);

    const before = await emulatorStats(fleet.emulator);
    const rotations = await Promise.all(Array.from({ length: 8 }, (_, i) => requestRotation(fleet.bffs[i % 2]!, session, held)));
    const after = await emulatorStats(fleet.emulator);

    expect(rotations.map((r) => r.status)).toEqual(Array(8).fill(200));
    const tokens = new Set(rotations.map((r) => r.token));
    expect(tokens.size).toBe(1);
    const [rotated] = tokens;
    expect(rotated).not.toBe(held);
    expect(after.rotate - before.rotate).toBe(1);
    // Neither process is left handing out the dead token.
    for (const bff of fleet.bffs) expect((await requestToken(bff, session)).token).toBe(rotated);
  });

  it('keeps answering from both processes while Redis is down', async () => {
    await fleet.redis.stop();
    await vi.waitFor(async () => expect(await Promise.all(fleet.bffs.map(readiness))).toEqual([503, 503]), { timeout: 15_000, interval: 100 });
    const orgs = ['down-0', 'down-1', 'first-0', 'rotating-org'];
    const sessions = await Promise.all(orgs.map(sessionFor));
    const answers = await Promise.all(sessions.flatMap((session) => fleet.bffs.map((bff) => requestToken(bff, session))));
    expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(200));
    // Degraded, each process goes straight to the vendor: still one token per customer, the
    // same from both processes, and each one the token of that customer's own group.
    const tokens = new Set<string>();
    for (const [i, org] of orgs.entries()) {
      const [fromFirst, fromSecond] = [answers[2 * i]!.token!, answers[2 * i + 1]!.token!];
      expect(fromSecond, org).toBe(fromFirst);
      expect(await groupNameOf(fleet.emulator, fromFirst)).toBe(`Org ${org}`);
      tokens.add(fromFirst);
    }
    expect(tokens.size).toBe(orgs.length);
  });

  it('while Redis is down, ten requests for one customer through each process cost one vendor call per process', async () => {
    const session = await sessionFor('outage-org');
    const before = await emulatorStats(fleet.emulator);
    const answers: TokenAnswer[] = [];
    for (let i = 0; i < 10; i++) answers.push(...(await Promise.all(fleet.bffs.map((bff) => requestToken(bff, session)))));
    const after = await emulatorStats(fleet.emulator);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.token)).size).toBe(1);
    // Each process makes one get-or-create; the one that finds the group already created sees it
    // as its session wants it (name, properties) and updates nothing. Without the local cache it
    // was 20 get-or-creates and up to 19 updates; before the answer was compared, one update more.
    expect(after.getOrCreate - before.getOrCreate).toBe(2);
    expect(after.update - before.update).toBe(0);
  });

  it('while Redis is down, a session whose properties differ from the vendor copy still gets them written before its token', async () => {
    const created = await requestToken(fleet.bffs[0], await sessionFor('outage-drift'));
    expect(created.status).toBe(200);
    const before = await emulatorStats(fleet.emulator);
    const wider = await sessionWith('outage-drift', { region: 'ALL', plan: 'pro' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => requestToken(fleet.bffs[1], wider)));
    const after = await emulatorStats(fleet.emulator);
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(after.getOrCreate - before.getOrCreate).toBe(1);
    expect(after.update - before.update).toBe(1);
    expect(await groupPropertiesOf(fleet.emulator, answers[0]!.token!)).toEqual({ region: 'ALL', plan: 'pro' });
  });

  it('shares again once Redis is back: a new burst calls the vendor once per customer', async () => {
    await fleet.redis.start();
    await waitUntilReady(fleet);
    const before = await emulatorStats(fleet.emulator);
    const answers = await burst(fleet, 'after-restart');
    const after = await emulatorStats(fleet.emulator);
    expectOneTokenPerGroup(answers);
    expect(after.getOrCreate - before.getOrCreate).toBe(GROUPS);
  });

  it('hands the restarted Redis what each process synced while it was down: those customers cost no vendor call after it', async () => {
    // The burst above was each process's first store call after the restart: its recovery, which
    // writes the outage's entries back (where Redis holds none) without holding up the request.
    const session = await sessionFor('outage-org');
    const before = await emulatorStats(fleet.emulator);
    await vi.waitFor(
      async () => {
        const answers = await Promise.all(fleet.bffs.map((bff) => requestToken(bff, session)));
        expect(answers.map((a) => a.status)).toEqual([200, 200]);
        expect(new Set(answers.map((a) => a.token)).size).toBe(1);
      },
      { timeout: 10_000, interval: 200 },
    );
    const after = await emulatorStats(fleet.emulator);
    expect(after.getOrCreate - before.getOrCreate).toBe(0);
    expect(after.update - before.update).toBe(0);
  });
});
