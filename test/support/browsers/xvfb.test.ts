import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../processes.js';
import { startXvfb } from './webkit.js';

/** An "Xvfb" that starts and never names a display: it writes its pid and waits. */
const dir = mkdtempSync(join(tmpdir(), 'xvfb-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = join(dir, 'silent-xvfb');
writeFileSync(silent, `#!/bin/sh\necho $$ > "${dir}/pid"\nexec sleep 30\n`);
chmodSync(silent, 0o755);

describe('startXvfb (the WebKit driver’s display)', () => {
  it('stops an Xvfb that did not name its display in time, and says so', async () => {
    await expect(startXvfb(silent, 1_000)).rejects.toThrow('Xvfb did not name its display within 1000 ms');
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    // Left running, it kept the test process from exiting and outlived the run.
    expect(isAlive(pid)).toBe(false);
  });

  it('reports an Xvfb that exits before naming its display', async () => {
    await expect(startXvfb('/bin/false')).rejects.toThrow('Xvfb exited with 1');
  });
});
