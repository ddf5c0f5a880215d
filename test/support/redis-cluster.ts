import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';
import { waitForPort } from './redis-server.js';

const run = promisify(execFile);

/** One node of a test cluster or sentinel group. */
export interface RedisNode {
  port: number;
  /** SIGKILL: a crash, as far as clients and the other nodes can tell. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same config file (a cluster node keeps its identity and slots; data is gone). */
  start(): Promise<void>;
}

export interface RedisCluster {
  /** `host:port` of every master, for `EMBED_REDIS_CLUSTER_NODES`. */
  nodes: string[];
  /** `redis://127.0.0.1:PORT` of the first master, for `EMBED_REDIS_URL`. */
  url: string;
  masters: RedisNode[];
  /** Resolves once every node says `cluster_state:ok`. */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function serverProcess(binary: string, port: number, args: string[]): RedisNode & { stop(): Promise<void> } {
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
      child = spawn(binary, args, { stdio: 'ignore' });
      await waitForPort(port, 10_000);
    },
  };
}

/**
 * A real Redis Cluster of three masters (no replicas) on loopback ports, created the way an
 * operator does: `redis-server --cluster-enabled yes` per node, then
 * `redis-cli --cluster create … --cluster-yes`. No persistence; `cluster-node-timeout` is short
 * so a killed node is noticed within about a second.
 */
export async function startRedisCluster(serverBinary: string, cliBinary: string, masters = 3): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'embed-redis-cluster-'));
  const nodes: (RedisNode & { stop(): Promise<void> })[] = [];
  const dispose = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      const busPort = await freePort();
      const node = serverProcess(serverBinary, port, [
        '--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1',
        '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '1000',
        '--save', '', '--appendonly', 'no', '--dir', dir,
      ]);
      nodes.push(node);
      await node.start();
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run(cliBinary, ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    const waitUntilHealthy = async (timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(
          nodes.map((node) =>
            run(cliBinary, ['-p', String(node.port), 'cluster', 'info'], { timeout: 5_000 }).then(
              ({ stdout }) => stdout.includes('cluster_state:ok'),
              () => false,
            ),
          ),
        );
        if (states.every(Boolean)) return;
        if (Date.now() > deadline) throw new Error(`the test cluster did not become healthy within ${timeoutMs} ms`);
        await sleep(100);
      }
    };
    await waitUntilHealthy();
    return { nodes: addresses, url: `redis://${addresses[0]}`, masters: nodes, waitUntilHealthy, dispose };
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
  /** The port of whichever node the sentinels now call master. */
  currentMasterPort(): Promise<number>;
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
    const dataArgs = (port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    const masterPort = await freePort();
    const master = serverProcess(serverBinary, masterPort, dataArgs(masterPort));
    processes.push(master);
    await master.start();
    const replicaPort = await freePort();
    const replica = serverProcess(serverBinary, replicaPort, [...dataArgs(replicaPort), '--replicaof', '127.0.0.1', String(masterPort)]);
    processes.push(replica);
    await replica.start();
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
      const sentinel = serverProcess(serverBinary, port, [config, '--sentinel']);
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
    return { sentinels, masterName, master, replica, currentMasterPort, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
