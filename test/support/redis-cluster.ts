import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';
import { exitReason, waitForPort } from './redis-server.js';

const run = promisify(execFile);

/** One node of a test cluster or sentinel group. */
export interface RedisNode {
  port: number;
  /** SIGKILL: a crash, as far as clients and the other nodes can tell. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same config file (a cluster node keeps its identity and slots; data is gone). */
  start(): Promise<void>;
}

/** A node as `CLUSTER NODES` describes it now. */
export interface ClusterNodeState {
  id: string;
  port: number;
  role: 'master' | 'replica';
  /** The master's id, for a replica. */
  masterOf: string | undefined;
  /** How many hash slots it serves (0 for replicas), and which: inclusive ranges. */
  slots: number;
  ranges: [number, number][];
  /** `fail` or `pfail` flagged by the node asked. */
  failing: boolean;
  /** `fail`: a majority of the masters agreed it is down (a replica may take over its slots). */
  failed: boolean;
}

export interface RedisCluster {
  /** `host:port` of every node that started as a master, for `EMBED_REDIS_CLUSTER_NODES`. */
  nodes: string[];
  /** `redis://127.0.0.1:PORT` of the first master, for `EMBED_REDIS_URL`. */
  url: string;
  /** The nodes that started as masters, then their replicas (a failover swaps roles, not these lists). */
  masters: RedisNode[];
  replicas: RedisNode[];
  /**
   * Resolves once every running node says `cluster_state:ok` and sees every slot served by a
   * running master not flagged `fail`; rejects after `timeoutMs` (default 20 s) saying what was
   * not, with each node's last failover events.
   */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  /**
   * Healthy, and every master serving slots has a replica in sync with it (`master_link_status:up`):
   * the cluster a fault scenario starts from, whatever the one before it did (default 30 s).
   */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** The cluster as a running node sees it. */
  topology(): Promise<ClusterNodeState[]>;
  /** `redis-cli --cluster reshard`: moves `slots` hash slots from the master on `fromPort` to the one on `toPort`, key by key. */
  reshard(fromPort: number, toPort: number, slots: number): Promise<void>;
  /** `redis-cli --cluster rebalance`: evens out the slots over the masters. */
  rebalance(): Promise<void>;
  /**
   * Moves the slot of `key` to the master on `toPort` the way a reshard moves a slot (SETSLOT
   * IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE), `key` first, then holding the slot half-moved for
   * `pauseMs`: meanwhile every command on `key` reaching the old owner is answered ASK.
   */
  migrateSlotOf(key: string, toPort: number, pauseMs: number): Promise<void>;
  /** ASK and MOVED redirections the running nodes answered so far (`INFO errorstats`). */
  redirections(): Promise<{ ask: number; moved: number }>;
  /**
   * `CLUSTER FAILOVER` on the replica at `replicaPort` (the operator's planned switch-over: the
   * master stops taking writes until its replica has caught up, then they swap roles); resolves
   * once the replica calls itself master.
   */
  failover(replicaPort: number): Promise<void>;
  dispose(): Promise<void>;
}

export interface RedisClusterOptions {
  /** Replicas per master; default 0. */
  replicas?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last lines of the log a node was started with (`--dir` and `--logfile`), for an error message. */
function logTail(args: string[]): string {
  const value = (name: string) => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  const dir = value('--dir');
  const file = value('--logfile');
  if (dir === undefined || file === undefined) return '';
  try {
    return `; its log ends:\n${readFileSync(join(dir, file), 'utf8').trim().split('\n').slice(-8).join('\n')}`;
  } catch {
    return '; it wrote no log';
  }
}

/**
 * A redis-server on `port` that is really the one this helper started: a port picked free a
 * moment ago may have been taken by another program meanwhile (other engineers and CI jobs run
 * clusters on the same machine), and a test must never drive someone else's server.
 */
function serverProcess(binary: string, port: number, args: string[], cliBinary?: string): RedisNode & { stop(): Promise<void> } {
  let child: ChildProcess | undefined;
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    kill,
    stop: kill,
    async start() {
      const started = spawn(binary, args, { stdio: 'ignore' });
      child = started;
      await waitForPort(port, 10_000, () => exitReason(started)).catch((error: Error) => {
        throw new Error(`${error.message}${logTail(args)}`);
      });
      if (cliBinary === undefined) return;
      const { stdout } = await run(cliBinary, ['-p', String(port), 'info', 'server'], { timeout: 5_000 });
      if (!stdout.includes(`process_id:${started.pid}\r`)) throw new Error(`port ${port} is served by another program than the redis-server this test started`);
    },
  };
}

/** Parses `CLUSTER NODES`. */
function parseClusterNodes(text: string): ClusterNodeState[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, masterId, , , , , ...slotRanges] = line.trim().split(' ');
      const port = Number(address!.split('@')[0]!.split(':').pop());
      // `[slot->-id]` / `[slot-<-id]` entries are migrations in progress, not served slots.
      const ranges = slotRanges
        .filter((range) => !range.startsWith('['))
        .map((range): [number, number] => {
          const [from, to] = range.split('-').map(Number);
          return [from!, to ?? from!];
        });
      const slots = ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0);
      const flagList = flags!.split(',');
      return {
        id: id!,
        port,
        role: flagList.includes('master') ? 'master' : 'replica',
        masterOf: masterId === '-' ? undefined : masterId,
        slots,
        ranges,
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        failed: flagList.includes('fail'),
      };
    });
}

/**
 * The slots no master serves in one node's view (`servers`: its masters with slots), as ranges,
 * and which node the other views say serves them: what a node that cannot see every slot is
 * missing, for the message of a cluster that did not heal.
 */
function unserved(servers: ClusterNodeState[], views: (ClusterNodeState[] | undefined)[]): string {
  const served = new Uint8Array(16_384);
  for (const n of servers) for (const [from, to] of n.ranges) served.fill(1, from, to + 1);
  const missing: [number, number][] = [];
  served.forEach((bit, slot) => {
    if (bit === 1) return;
    const last = missing.at(-1);
    if (last !== undefined && last[1] === slot - 1) last[1] = slot;
    else missing.push([slot, slot]);
  });
  if (missing.length === 0) return '';
  const [first] = missing[0]!;
  const owners = views.map((view) => view?.find((n) => n.role === 'master' && n.ranges.some(([from, to]) => first >= from && first <= to))?.port ?? 'none');
  return ` (unserved: ${missing
    .slice(0, 5)
    .map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`))
    .join(', ')}; slot ${first}'s server in each node's view: ${owners.join(', ')})`;
}

/**
 * A real Redis Cluster of `masters` masters (3 by default) and `replicas` replicas each, on
 * loopback ports, created the way an operator does: `redis-server --cluster-enabled yes` per
 * node, then `redis-cli --cluster create … --cluster-replicas N --cluster-yes`. No persistence;
 * `cluster-node-timeout` is short so a killed master is noticed, and its replica promoted, within
 * a few seconds. Every node's cluster bus port is a free port of its own (`--cluster-port`), not
 * port + 10000, which another program on the machine may hold.
 */
export async function startRedisCluster(serverBinary: string, cliBinary: string, masters = 3, options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'embed-redis-cluster-'));
  const nodes: (RedisNode & { stop(): Promise<void> })[] = [];
  const dispose = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  const replicas = options.replicas ?? 0;
  const cli = (port: number, ...args: string[]) => run(cliBinary, ['-p', String(port), ...args], { timeout: 10_000 }).then(({ stdout }) => stdout);
  try {
    // A port free a moment ago can be taken before the node binds it (an outgoing connection's
    // local port, on a busy machine): that node exits saying so, and starts again on new ports.
    for (let i = 0, taken = 0; i < masters * (1 + replicas); i++) {
      const port = await freePort();
      const busPort = await freePort();
      const node = serverProcess(
        serverBinary,
        port,
        [
          '--port',
          String(port),
          '--cluster-port',
          String(busPort),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '1000',
          // A restarted master rejoins as its promoted replica's replica, and a replica may be promoted whatever its lag.
          '--cluster-replica-validity-factor',
          '0',
          // Redis 7 waits 5 s before a replica's first sync (to batch replicas): a test's replicas would start empty.
          '--repl-diskless-sync-delay',
          '0',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--logfile',
          `node-${port}.log`,
        ],
        cliBinary,
      );
      nodes.push(node);
      const started = await node.start().then(
        () => true,
        (error: Error) => {
          if (!error.message.includes('Address already in use') || ++taken > 3) throw error;
          return false;
        },
      );
      if (!started) {
        nodes.pop();
        i--;
      }
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run(cliBinary, ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 30_000 });
    const live = async (): Promise<number> => {
      for (const node of nodes) {
        if (
          await cli(node.port, 'ping').then(
            (out) => out.trim() === 'PONG',
            () => false,
          )
        )
          return node.port;
      }
      throw new Error('no node of the test cluster answers');
    };
    const topology = async () => parseClusterNodes(await cli(await live(), 'cluster', 'nodes'));
    /**
     * What keeps the cluster from serving every slot now, in words (none: healthy). Asked of every
     * running node, not one: each answers clients from its own view, and after a failover the views
     * agree only once gossip has reached every node. A master flagged `fail` (a majority agreed it
     * is down) does not serve; `fail?` is one node's suspicion, which either becomes `fail` (and
     * `cluster_state` says so) or clears, so it does not count here.
     */
    const unhealthy = async (): Promise<string[]> => {
      const [infos, views] = await Promise.all([
        Promise.all(nodes.map((node) => cli(node.port, 'cluster', 'info').catch(() => undefined))),
        Promise.all(nodes.map((node) => cli(node.port, 'cluster', 'nodes').then(parseClusterNodes, () => undefined))),
      ]);
      const running = new Set(nodes.filter((_, i) => infos[i] !== undefined).map((node) => node.port));
      const reasons: string[] = [];
      nodes.forEach((node, i) => {
        const info = infos[i];
        if (info === undefined) return;
        const state = /cluster_state:(\w+)/.exec(info)?.[1];
        if (state !== 'ok') reasons.push(`${node.port} says cluster_state:${state}`);
        const view = views[i];
        if (view === undefined) return reasons.push(`${node.port} did not answer CLUSTER NODES`);
        const servers = view.filter((n) => n.role === 'master' && n.slots > 0);
        const slots = servers.reduce((sum, n) => sum + n.slots, 0);
        const away = servers.filter((n) => !running.has(n.port) || n.failed).map((n) => `${n.port}${n.failed ? ' (fail)' : ' (not running)'}`);
        if (slots !== 16_384 || away.length > 0)
          reasons.push(`${node.port} sees ${slots} slots on masters${away.length > 0 ? `, served by ${away.join(', ')}` : ''}${unserved(servers, views)}`);
      });
      return reasons;
    };
    /** The last failover events of each node's log: what a cluster that did not heal went through. */
    const history = () =>
      nodes
        .map((node) => {
          const lines = (() => {
            try {
              return readFileSync(join(dir, `node-${node.port}.log`), 'utf8').split('\n');
            } catch {
              return [];
            }
          })().filter((line) => /failing|FAIL|election|[Ff]ailover|state changed|configEpoch|timed out/.test(line));
          return `  node ${node.port}:\n    ${lines.slice(-12).join('\n    ')}`;
        })
        .join('\n');
    const waitUntilHealthy = async (timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reasons = await unhealthy();
        if (reasons.length === 0) return;
        if (Date.now() > deadline) throw new Error(`the test cluster did not become healthy within ${timeoutMs} ms: ${reasons.join('; ')}\n${history()}`);
        await sleep(100);
      }
    };
    const idOf = async (port: number) => {
      const node = (await topology()).find((n) => n.port === port);
      if (node === undefined) throw new Error(`no cluster node on port ${port}`);
      return node.id;
    };
    /** Waits until `redis-cli --cluster check` finds the nodes agreeing about the slots (gossip takes a moment after a change). */
    const settled = async (timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ok = await run(cliBinary, ['--cluster', 'check', `127.0.0.1:${await live()}`], { timeout: 10_000 }).then(
          ({ stdout }) => !stdout.includes('[ERR]') && !stdout.includes('[WARNING]'),
          () => false,
        );
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`the test cluster's nodes did not agree about the slots within ${timeoutMs} ms`);
        await sleep(100);
      }
    };
    /** Masters serving slots that have no replica in sync with them now (none without replicas). */
    const unreplicated = async (): Promise<string[]> => {
      if (replicas === 0) return [];
      const view = await topology();
      const linked = await Promise.all(
        view.map(async (n) => {
          if (n.role !== 'replica' || n.masterOf === undefined) return undefined;
          const info = await cli(n.port, 'info', 'replication').catch(() => '');
          return info.includes('master_link_status:up') ? n.masterOf : undefined;
        }),
      );
      return view.filter((n) => n.role === 'master' && n.slots > 0 && !linked.includes(n.id)).map((n) => `${n.port} has no replica in sync`);
    };
    const waitUntilReady = async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reasons = [...(await unhealthy()), ...(await unreplicated().catch((error: unknown) => [String(error)]))];
        if (reasons.length === 0) return;
        if (Date.now() > deadline) throw new Error(`the test cluster was not ready within ${timeoutMs} ms: ${reasons.join('; ')}\n${history()}`);
        await sleep(100);
      }
    };
    // Every replica has its master's data before the cluster is handed out.
    await waitUntilReady();
    // redis-cli chooses which nodes become masters.
    const masterPorts = new Set((await topology()).filter((n) => n.role === 'master').map((n) => n.port));
    const masterNodes = nodes.filter((node) => masterPorts.has(node.port));
    const masterAddresses = masterNodes.map((node) => `127.0.0.1:${node.port}`);
    const replicaNodes = nodes.filter((node) => !masterPorts.has(node.port));
    return {
      nodes: masterAddresses,
      url: `redis://${masterAddresses[0]}`,
      masters: masterNodes,
      replicas: replicaNodes,
      waitUntilHealthy,
      waitUntilReady,
      topology,
      async reshard(fromPort, toPort, slots) {
        const [from, to] = [await idOf(fromPort), await idOf(toPort)];
        // One key per MIGRATE: a slot's keys move one by one, so clients meet ASK redirections meanwhile.
        await run(
          cliBinary,
          [
            '--cluster',
            'reshard',
            `127.0.0.1:${toPort}`,
            '--cluster-from',
            from,
            '--cluster-to',
            to,
            '--cluster-slots',
            String(slots),
            '--cluster-yes',
            '--cluster-pipeline',
            '1',
          ],
          { timeout: 60_000 },
        );
        await settled();
      },
      async rebalance() {
        await settled();
        await run(cliBinary, ['--cluster', 'rebalance', `127.0.0.1:${await live()}`, '--cluster-pipeline', '1'], { timeout: 60_000 }).catch(
          (error: { stdout?: string }) => {
            throw new Error(`redis-cli --cluster rebalance failed: ${error.stdout?.slice(-2000) ?? String(error)}`);
          },
        );
        await settled();
      },
      async migrateSlotOf(key, toPort, pauseMs) {
        const slot = Number((await cli(await live(), 'cluster', 'keyslot', key)).trim());
        const nodes = await topology();
        const source = nodes.find((n) => n.role === 'master' && n.ranges.some(([from, to]) => slot >= from && slot <= to));
        const target = nodes.find((n) => n.port === toPort);
        if (source === undefined || target === undefined) throw new Error(`no owner of slot ${slot}, or no node on ${toPort}`);
        if (source.port === toPort) return;
        await cli(toPort, 'cluster', 'setslot', String(slot), 'importing', source.id);
        await cli(source.port, 'cluster', 'setslot', String(slot), 'migrating', target.id);
        const migrate = (keys: string[]) => cli(source.port, 'migrate', '127.0.0.1', String(toPort), '', '0', '5000', 'keys', ...keys);
        await migrate([key]);
        await sleep(pauseMs);
        for (;;) {
          const keys = (await cli(source.port, 'cluster', 'getkeysinslot', String(slot), '100')).split('\n').filter(Boolean);
          if (keys.length === 0) break;
          await migrate(keys);
        }
        for (const node of [target, source, ...nodes.filter((n) => n.role === 'master' && n !== target && n !== source)]) {
          await cli(node.port, 'cluster', 'setslot', String(slot), 'node', target.id).catch(() => undefined);
        }
        await settled();
      },
      async redirections() {
        let [ask, moved] = [0, 0];
        for (const node of nodes) {
          const info = await cli(node.port, 'info', 'errorstats').catch(() => '');
          ask += Number(/errorstat_ASK:count=(\d+)/.exec(info)?.[1] ?? 0);
          moved += Number(/errorstat_MOVED:count=(\d+)/.exec(info)?.[1] ?? 0);
        }
        return { ask, moved };
      },
      async failover(replicaPort) {
        const answer = (await cli(replicaPort, 'cluster', 'failover')).trim();
        if (answer !== 'OK') throw new Error(`CLUSTER FAILOVER on ${replicaPort} answered ${answer}`);
        const deadline = Date.now() + 15_000;
        while (!(await cli(replicaPort, 'role')).startsWith('master')) {
          if (Date.now() > deadline) throw new Error(`the replica on ${replicaPort} did not take over within 15 s`);
          await sleep(50);
        }
      },
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

export interface RedisSentinelGroup {
  /** `host:port` of every sentinel, for `EMBED_REDIS_SENTINELS`. */
  sentinels: string[];
  /** The master's name the sentinels know it by. */
  masterName: string;
  master: RedisNode;
  replica: RedisNode;
  /** The port of whichever node the sentinels now call master (the first sentinel that answers). */
  currentMasterPort(): Promise<number>;
  /** Whether every sentinel names the node on `port` as the master and none has a failover under way. */
  allSentinelsSettledOn(port: number): Promise<boolean>;
  /**
   * Resolves once every sentinel names the same master, with no failover under way, and knows its
   * replica (in sync with it) and every other sentinel: a failover can then start from any of
   * them. Rejects after `timeoutMs` (default 30 s) saying what was missing.
   */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A master, one replica and `sentinelCount` sentinels (`redis-server --sentinel`) with quorum 1
 * and short timeouts, so killing the master makes the sentinels promote the replica within a few
 * seconds.
 */
export async function startRedisSentinelGroup(serverBinary: string, cliBinary: string, sentinelCount = 3): Promise<RedisSentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'embed-redis-sentinel-'));
  const processes: (RedisNode & { stop(): Promise<void> })[] = [];
  const dispose = async () => {
    await Promise.all(processes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  const masterName = 'embed-master';
  try {
    const dataArgs = (port: number) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--repl-diskless-sync-delay',
      '0',
      '--dir',
      dir,
    ];
    const masterPort = await freePort();
    const master = serverProcess(serverBinary, masterPort, dataArgs(masterPort), cliBinary);
    processes.push(master);
    await master.start();
    const replicaPort = await freePort();
    const replica = serverProcess(serverBinary, replicaPort, [...dataArgs(replicaPort), '--replicaof', '127.0.0.1', String(masterPort)], cliBinary);
    processes.push(replica);
    await replica.start();
    const linked = Date.now() + 10_000;
    while (!(await run(cliBinary, ['-p', String(replicaPort), 'info', 'replication'], { timeout: 5_000 })).stdout.includes('master_link_status:up')) {
      if (Date.now() > linked) throw new Error('the replica did not sync with its master within 10 s');
      await sleep(50);
    }
    const sentinels: string[] = [];
    for (let i = 0; i < sentinelCount; i++) {
      const port = await freePort();
      const config = join(dir, `sentinel-${port}.conf`);
      // A sentinel rewrites its config file, so each gets its own writable one.
      writeFileSync(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      const sentinel = serverProcess(serverBinary, port, [config, '--sentinel'], cliBinary);
      processes.push(sentinel);
      await sentinel.start();
      sentinels.push(`127.0.0.1:${port}`);
    }
    const currentMasterPort = async () => {
      for (const address of sentinels) {
        const port = address.split(':')[1]!;
        try {
          const { stdout } = await run(cliBinary, ['-p', port, 'sentinel', 'get-master-addr-by-name', masterName], { timeout: 5_000 });
          const lines = stdout.trim().split('\n');
          if (lines.length === 2) return Number(lines[1]);
        } catch {
          // ask the next sentinel
        }
      }
      throw new Error('no sentinel answered get-master-addr-by-name');
    };
    const allSentinelsSettledOn = async (port: number) => {
      for (const address of sentinels) {
        const sentinelPort = address.split(':')[1]!;
        try {
          const named = (await run(cliBinary, ['-p', sentinelPort, 'sentinel', 'get-master-addr-by-name', masterName], { timeout: 5_000 })).stdout
            .trim()
            .split('\n');
          const flags = (await run(cliBinary, ['-p', sentinelPort, 'sentinel', 'master', masterName], { timeout: 5_000 })).stdout;
          if (Number(named[1]) !== port || flags.includes('failover_in_progress')) return false;
        } catch {
          return false;
        }
      }
      return true;
    };
    const sentinelView = async (sentinelPort: string) => {
      const lines = (await run(cliBinary, ['-p', sentinelPort, 'sentinel', 'master', masterName], { timeout: 5_000 })).stdout.trim().split('\n');
      const fields = new Map<string, string>();
      for (let i = 0; i + 1 < lines.length; i += 2) fields.set(lines[i]!, lines[i + 1]!);
      return fields;
    };
    const notReady = async (): Promise<string[]> => {
      const masterPort = await currentMasterPort();
      const reasons: string[] = [];
      for (const address of sentinels) {
        const sentinelPort = address.split(':')[1]!;
        const view = await sentinelView(sentinelPort).catch(() => undefined);
        if (view === undefined) {
          reasons.push(`sentinel ${sentinelPort} did not answer`);
          continue;
        }
        if (Number(view.get('port')) !== masterPort || view.get('flags') !== 'master')
          reasons.push(`sentinel ${sentinelPort} sees ${view.get('port')} (${view.get('flags')})`);
        if (Number(view.get('num-slaves')) < 1) reasons.push(`sentinel ${sentinelPort} knows no replica`);
        if (Number(view.get('num-other-sentinels')) !== sentinels.length - 1)
          reasons.push(`sentinel ${sentinelPort} knows ${view.get('num-other-sentinels')} other sentinels`);
      }
      const replicaPort = masterPort === master.port ? replica.port : master.port;
      const link = await run(cliBinary, ['-p', String(replicaPort), 'info', 'replication'], { timeout: 5_000 }).then(
        ({ stdout }) => stdout,
        () => '',
      );
      if (!link.includes('master_link_status:up')) reasons.push(`the replica on ${replicaPort} is not in sync`);
      return reasons;
    };
    const waitUntilReady = async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reasons = await notReady().catch((error: unknown) => [String(error)]);
        if (reasons.length === 0) return;
        if (Date.now() > deadline) throw new Error(`the sentinel group was not ready within ${timeoutMs} ms: ${reasons.join('; ')}`);
        await sleep(100);
      }
    };
    await waitUntilReady();
    return { sentinels, masterName, master, replica, currentMasterPort, allSentinelsSettledOn, waitUntilReady, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
