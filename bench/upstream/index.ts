import { tokenUrl, startBff } from '../lib/bff.js';
import { startEmulator } from '../lib/emulator.js';
import { formatRatio } from '../lib/format.js';
import { startRedisServer } from '../../test/support/redis-server.js';
import { redisServerTool } from '../../test/support/tools.js';
import { NotAvailable, unavailableRows, type Row } from '../lib/row.js';
import { ratio } from '../lib/stats.js';
import { burst } from './burst.js';

const ONE = ['3a', 'vendor calls per new customer (get-or-create + update + rotate), 1 BFF process', 'fixed target'] as const;
const TWO = ['3b', 'vendor calls per new customer (get-or-create + update + rotate), 2 BFF processes + Redis', 'fixed target'] as const;
const OPS = ['getOrCreate', 'update', 'rotate'] as const;
const OP_LABELS: Record<(typeof OPS)[number], string> = { getOrCreate: 'get-or-create', update: 'update', rotate: 'rotate' };

/**
 * Row 3: a concurrent burst of N token requests over G customers the BFF has never seen. Every
 * vendor call the burst causes is counted, whatever its type (the emulator's per-operation
 * stats): single-flight and one call per new customer should make exactly G calls, also when two
 * BFF processes share the burst through Redis. The BFFs run as the bench always runs them, with
 * `EMBED_EXPECT_ENVIRONMENT=Customer`.
 */
export async function runUpstream(quick: boolean): Promise<Row[]> {
  const groups = quick ? 3 : 20;
  const requests = quick ? 12 : 400;
  const stoppers: Array<() => Promise<void>> = [];
  const rows: Row[] = [];
  try {
    const emulator = await startEmulator('upstream-emulator');
    stoppers.push(emulator.stop);

    const measure = async (metric: readonly [string, string, 'fixed target'], prefix: string, urls: string[]): Promise<Row> => {
      // One customer first, through every process: the account's environment is learned once per
      // account (a probe group), a one-time cost that is not a cost per new customer. Its calls are
      // shown in the row, apart from the per-customer count.
      const start = await emulator.stats();
      await burst(urls, [`${prefix}-warm-up`], urls.length);
      const before = await emulator.stats();
      const warmUp = OPS.map((op) => [op, before.requests[op] - start.requests[op]] as const);
      const warmUpCalls = warmUp.reduce((sum, [, count]) => sum + count, 0);
      const groupIds = Array.from({ length: groups }, (_, index) => `${prefix}-${index}`);
      const result = await burst(urls, groupIds, requests);
      const after = await emulator.stats();
      if (result.failed > 0) throw new Error(`${result.failed} of ${requests} token requests failed (see bench/.tmp/upstream-*.log)`);
      const byOp = OPS.map((op) => [op, after.requests[op] - before.requests[op]] as const);
      const calls = byOp.reduce((sum, [, count]) => sum + count, 0);
      const perGroup = ratio(calls, groups);
      const consistency = result.inconsistentGroups > 0 ? `; ${result.inconsistentGroups} customers got different tokens` : '';
      return {
        id: metric[0],
        metric: `${metric[1]} (${requests} concurrent requests, ${groups} new customers)`,
        kind: metric[2],
        ours:
          `${calls} calls (${byOp.map(([op, count]) => `${count} ${OP_LABELS[op]}`).join(', ')})${consistency}; ` +
          `not in the count: once per account, before the burst, 1 warm-up customer + the account's environment probe = ` +
          `${warmUpCalls} calls (${warmUp.map(([op, count]) => `${count} ${OP_LABELS[op]}`).join(', ')})`,
        baseline: `${groups} customers (1 call each)`,
        ratio: formatRatio(perGroup),
        target: '= 1.00×',
        result: perGroup === 1 && result.inconsistentGroups === 0 ? 'pass' : 'miss',
      };
    };

    try {
      const bff = await startBff({ upstreamUrl: emulator.url, logName: 'upstream-bff' });
      stoppers.push(() => bff.stop());
      rows.push(await measure(ONE, 'one-process', [tokenUrl(bff.url)]));
    } catch (error) {
      rows.push(...unavailableRows([ONE], error));
    }

    try {
      const tool = redisServerTool();
      if (!tool.available) throw new NotAvailable('redis-server not installed');
      const redis = await startRedisServer(tool.path);
      stoppers.push(redis.dispose);
      const bffs = await Promise.all(
        ['upstream-bff-redis-1', 'upstream-bff-redis-2'].map((logName) => startBff({ upstreamUrl: emulator.url, logName, redisUrl: redis.url })),
      );
      for (const bff of bffs) stoppers.push(() => bff.stop());
      rows.push(
        await measure(
          TWO,
          'two-processes',
          bffs.map((bff) => tokenUrl(bff.url)),
        ),
      );
    } catch (error) {
      rows.push(...unavailableRows([TWO], error));
    }
    return rows;
  } catch (error) {
    return unavailableRows([ONE, TWO], error);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}
