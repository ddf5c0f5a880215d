import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freePort } from './ports.js';
import { exitReason, waitForPort } from './redis-server.js';
import { redisServerTool } from './tools.js';

/*
 * A redis-server that cannot listen (its port taken between `freePort` and its start, a refused
 * argument) is reported at once with how it ended, not after the wait's whole timeout with no
 * reason: the bench's cluster start failed that way ("did not listen on 42701 within 10000 ms")
 * and said nothing more.
 */

const tool = redisServerTool();
/** Far beyond the test's own timeout: a wait that did not stop at the exit fails the test. */
const WAIT_OUT = 600_000;

it('stops waiting as soon as the process is gone, with its reason', async () => {
  await expect(waitForPort(await freePort(), WAIT_OUT, () => 'exited with 1')).rejects.toThrow(/^redis-server on \d+ exited with 1 before it listened$/);
});

describe.skipIf(!tool.available)('a real redis-server that cannot start', () => {
  it('exits, and the wait says so at once instead of timing out', async () => {
    const port = await freePort();
    const child = spawn(tool.path, ['--port', String(port), '--bind', '127.0.0.1', '--no-such-option', 'yes'], { stdio: 'ignore' });
    await expect(waitForPort(port, WAIT_OUT, () => exitReason(child))).rejects.toThrow(`redis-server on ${port} exited with 1 before it listened`);
  });
});
