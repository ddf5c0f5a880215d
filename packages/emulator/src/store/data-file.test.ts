import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { callApi, group } from '../../test/support/call-api.js';
import { DataFileError } from './data-file.js';

let dir: string;
let dataFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'emulator-data-'));
  dataFile = join(dir, 'groups.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const onDisk = () => JSON.parse(readFileSync(dataFile, 'utf8'));

describe('dataFile persistence', () => {
  it('has every acknowledged change on disk before it answers', async () => {
    const { app } = createEmulator({ dataFile });
    const created = await callApi(app, 'GET', { body: group('acme') });
    expect(onDisk().groups).toMatchObject([{ providedId: 'acme', token: created.body.user_group.token }]);
    await callApi(app, 'PUT', { body: group('acme', { name: 'Renamed' }) });
    expect(onDisk().groups[0].name).toBe('Renamed');
    const rotated = await callApi(app, 'POST', { body: { current_token: created.body.user_group.token } });
    expect(onDisk().groups[0].token).toBe(rotated.body.user_group.token);
  });

  it('restores groups, tokens and team ids in a new emulator', async () => {
    const first = createEmulator({ dataFile });
    const a = await callApi(first.app, 'GET', { body: group('a') });
    const t = await callApi(first.app, 'GET', { key: 'dev-testing-key', body: group('a') });
    await first.close();
    const second = createEmulator({ dataFile });
    const again = await callApi(second.app, 'GET', { body: group('a') });
    expect(again.body).toEqual({ ...a.body, new_user_group: false });
    expect(second.resolveToken(t.body.user_group.token)?.environment).toBe('Testing');
    const b = await callApi(second.app, 'GET', { body: group('b') });
    expect(b.body.user_group.team_id).toBeGreaterThan(t.body.user_group.team_id);
  });

  it('keeps every one of many concurrent changes', async () => {
    const { app } = createEmulator({ dataFile });
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => callApi(app, 'GET', { body: group(`g${i}`) })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(onDisk().groups).toHaveLength(25);
    expect(readdirSync(dir)).toEqual(['groups.json']);
  });

  it('persists admin expire and reset', async () => {
    const emulator = createEmulator({ dataFile, admin: true });
    const token = (await callApi(emulator.app, 'GET', { body: group('a') })).body.user_group.token;
    await emulator.app.request('/__emulator/expire', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(createEmulator({ dataFile }).resolveToken(token)).toBeUndefined();
    await emulator.app.request('/__emulator/reset', { method: 'POST' });
    expect(onDisk().groups).toEqual([]);
  });

  it('ignores a torn temporary file left by a crash mid-write', async () => {
    const first = createEmulator({ dataFile });
    const token = (await callApi(first.app, 'GET', { body: group('a') })).body.user_group.token;
    writeFileSync(join(dir, '.groups.json.999.7.tmp'), '{"version":1,"nextTeamId":');
    const second = createEmulator({ dataFile });
    expect(second.resolveToken(token)?.providedId).toBe('a');
  });

  it.each([
    ['truncated JSON', '{"version":1,"groups":['],
    ['not an object', '[]'],
    ['a wrong version', '{"version":2,"nextTeamId":1,"groups":[],"tokens":[]}'],
    ['a bad group', '{"version":1,"nextTeamId":1,"groups":[{"teamId":1}],"tokens":[]}'],
    ['empty', ''],
  ])('refuses to start on a corrupt file (%s) and leaves it untouched', (_, text) => {
    writeFileSync(dataFile, text);
    expect(() => createEmulator({ dataFile })).toThrow(DataFileError);
    expect(() => createEmulator({ dataFile })).toThrow(/corrupt.*refusing to start/);
    expect(readFileSync(dataFile, 'utf8')).toBe(text);
  });

  it('starts empty when the file does not exist yet', () => {
    expect(createEmulator({ dataFile }).stats().groups).toBe(0);
  });

  it('answers 500 internal, never success, when the change cannot be written', async () => {
    const { app } = createEmulator({ dataFile: join(dir, 'missing-dir', 'groups.json') });
    const { status, body } = await callApi(app, 'GET', { body: group('a') });
    expect(status).toBe(500);
    expect(body).toEqual({ success: 0, error: { code: 'internal', message: 'the change could not be persisted' } });
  });
});
