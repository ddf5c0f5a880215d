import { tokenUrl, startBff } from '../lib/bff.js';
import { startEmulator } from '../lib/emulator.js';
import { formatRatio } from '../lib/format.js';
import { startRedisServer } from '../../test/support/redis-server.js';
import { redisServerTool } from '../../test/support/tools.js';
import { NotAvailable, unavailableRows, type Row } from '../lib/row.js';
import { ratio } from '../lib/stats.js';
import { burst } from './burst.js';

const ONE = ['3a', 'upstream get-or-create calls per new group, 1 BFF process'] as const;
const TWO = ['3b', 'upstream get-or-create calls per new group, 2 BFF processes + Redis'] as const;

/**
 * Row 3: a concurrent burst of N token requests over G customers the BFF has never seen.
 * Single-flight should turn it into exactly G upstream get-or-create calls, also when two BFF
 * processes share the burst through Redis.
 */
export async function runUpstream(quick: boolean): Promise<Row[]> {
  const groups = quick ? 5 : 20;
  const requests = quick ? 50 : 400;
  const stoppers: Array<() => Promise<void>> = [];
  const rows: Row[] = [];
  try {
    const emulator = await startEmulator('upstream-emulator');
    stoppers.push(emulator.stop);

    const measure = async (metric: readonly [string, string], prefix: string, urls: string[]): Promise<Row> => {
      const before = await emulator.stats();
      const groupIds = Array.from({ length: groups }, (_, index) => `${prefix}-${index}`);
      const result = await burst(urls, groupIds, requests);
      const after = await emulator.stats();
      if (result.failed > 0) throw new Error(`${result.failed} of ${requests} token requests failed (see bench/.tmp/upstream-*.log)`);
      const calls = after.requests.getOrCreate - before.requests.getOrCreate;
      const perGroup = ratio(calls, groups);
      const consistency = result.inconsistentGroups > 0 ? `; ${result.inconsistentGroups} groups got different tokens` : '';
      return {
        id: metric[0],
        metric: `${metric[1]} (${requests} concurrent requests, ${groups} groups)`,
        ours: `${calls} calls${consistency}`,
        baseline: `${groups} groups (1 call each)`,
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
      rows.push(await measure(TWO, 'two-processes', bffs.map((bff) => tokenUrl(bff.url))));
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
