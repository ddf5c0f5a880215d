import { readFile } from 'node:fs/promises';
import { UserGroupClient } from '@embedded-dashboard/client';
import type { UserGroupInput } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import { isDataSourceMapping } from '../session/claims.js';
import { createBffRuntime } from '../runtime.js';
import { resolveSettings } from '../settings.js';
import { groupFingerprint } from '../customer-token/fingerprint.js';
import type { CliIo } from './main.js';
import { openStore } from './main.js';
import { clientOptions } from '../env/app-options.js';
import { parseConfig } from './env.js';
import { createProgress } from './progress.js';

export const PROVISION_USAGE = `usage: embedded-dashboard-bff provision FILE|- [--dry-run]

Creates or updates every user group of FILE (JSON Lines: one {"user_group_id","name","properties","mapping"?}
a line; - reads stdin) at the vendor, within EMBED_UPSTREAM_RATE, and stores their tokens in the
store (EMBED_REDIS_URL) so first visits need no vendor call. A rerun skips groups already in sync.
Bad lines are reported (line number and reason) and skipped; the exit code is then 1.`;

const MAX_ID = 256;
const CONCURRENCY = 4;
const MAX_ATTEMPTS = 20;
/** provision has no sessions; the config check wants a verifier, which this placeholder satisfies. */
const NO_SESSIONS = 'provision-has-no-sessions-0123456789abcdef';

/**
 * One line of the file as a group, or the reason it is not one. The mapping is the line's, else
 * `EMBED_MAPPING`'s, else none: a group's mapping set at the vendor is then left alone, as the BFF
 * leaves it.
 */
export function parseProvisionLine(text: string, staticMapping: UserGroupInput['mapping']): UserGroupInput | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const line = value as Record<string, unknown>;
  const unknown = Object.keys(line).filter((key) => !['user_group_id', 'name', 'properties', 'mapping'].includes(key));
  if (unknown.length > 0) return `unknown field ${JSON.stringify(unknown[0]!.slice(0, 64))}`;
  const { user_group_id: id, name, properties, mapping } = line;
  if (typeof id !== 'string' || id.trim() === '' || id.length > MAX_ID) return `user_group_id must be a non-blank string of at most ${MAX_ID} characters`;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_ID) return `name must be a non-blank string of at most ${MAX_ID} characters`;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return 'properties must be a JSON object (the same the sessions will carry)';
  if (mapping !== undefined && !isDataSourceMapping(mapping)) return 'mapping must be an object of strings';
  const managed = mapping ?? staticMapping;
  return { user_group_id: id, name, properties: properties as Record<string, unknown>, ...(managed !== undefined && { mapping: managed }) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `embedded-dashboard-bff provision FILE|- [--dry-run]`. */
export async function runProvision(argv: string[], env: Record<string, string | undefined>, io: CliIo, stdinText?: () => Promise<string>): Promise<void> {
  const dryRun = argv.includes('--dry-run');
  const files = argv.filter((arg) => arg !== '--dry-run');
  if (files.length !== 1 || files[0]!.startsWith('--')) {
    io.err(PROVISION_USAGE);
    process.exitCode = 2;
    return;
  }
  const verifier = env.EMBED_SESSION_SECRET || env.EMBED_SESSION_JWKS_URL ? {} : { EMBED_SESSION_SECRET: NO_SESSIONS };
  const { config, problems } = parseConfig({ ...env, ...verifier });
  for (const problem of problems) io.err(`config: ${problem}`);
  if (config === undefined) {
    process.exitCode = 1;
    return;
  }
  let text: string;
  try {
    text = files[0] === '-' ? await (stdinText ?? readStdin)() : await readFile(files[0]!, 'utf8');
  } catch (error) {
    io.err(`provision: cannot read ${JSON.stringify(files[0])} (${(error as Error).message.split('\n')[0]})`);
    process.exitCode = 1;
    return;
  }

  const groups: { line: number; group: UserGroupInput }[] = [];
  const bad: string[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const parsed = parseProvisionLine(raw, config.session.staticMapping);
    if (typeof parsed === 'string') bad.push(`line ${index + 1}: ${parsed}`);
    else groups.push({ line: index + 1, group: parsed });
  });

  const client = new UserGroupClient(clientOptions(config));
  const store = await openStore(config);
  const options = {
    upstream: client,
    identify: () => null,
    store,
    logLevel: 'silent' as const,
    expectEnvironment: config.expectEnvironment,
    keyPrefix: config.keyPrefix,
    // A rerun skips what the serving fleet would not re-check yet.
    revalidateAfterSeconds: config.revalidateAfterSeconds,
    upstreamRatePerMinute: config.upstreamRatePerMinute,
    upstreamBurst: config.upstreamBurst,
    rateLimit: false as const,
  };
  const { keyPrefix, tokens } = resolveSettings(options);
  const runtime = createBffRuntime(options);
  const service = runtime.service;
  // Provisioning syncs Explo's user groups; options without `upstream` never reach here (main.ts).
  if (service === undefined) throw new TypeError('provision syncs Explo user groups: EMBED_VENDOR must be explo');
  const counts = { synced: 0, inSync: 0, failed: 0 };
  const bar = createProgress(groups.length, { ...(process.stderr.isTTY === true ? { tty: process.stderr } : {}), line: io.err });
  const next = groups[Symbol.iterator]();
  const worker = async () => {
    for (let item = next.next(); !item.done; item = next.next()) {
      const { line, group } = item.value;
      // The file is what the integrator knows now: sessions issued before it do not rewrite it.
      const resolved = { group, key: keyPrefix + group.user_group_id, fingerprint: groupFingerprint(group), issuedAtMs: tokens.now() };
      const entry = await runtime.store.get(resolved.key);
      const fresh = entry !== undefined && entry.fingerprint === resolved.fingerprint && tokens.now() - entry.syncedAt < tokens.revalidateAfterMs;
      if (fresh) counts.inSync++;
      else if (dryRun) counts.synced++;
      else {
        for (let attempt = 1; ; attempt++) {
          try {
            await service.token(resolved);
            counts.synced++;
            break;
          } catch (error) {
            const retry = error instanceof BffError && error.retryable && attempt < MAX_ATTEMPTS;
            if (!retry) {
              counts.failed++;
              bad.push(`line ${line}: ${group.user_group_id.slice(0, 64)}: ${error instanceof Error ? error.message : String(error)}`);
              break;
            }
            await sleep((error.retryAfterSeconds ?? 1) * 1000);
          }
        }
      }
      bar.tick();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  bar.done();
  await store.close();
  for (const line of bad) io.err(`provision: ${line}`);
  const verb = dryRun ? 'would sync' : 'synced';
  io.out(`provision: ${verb} ${counts.synced}, already in sync ${counts.inSync}, failed ${counts.failed}, bad lines ${bad.length - counts.failed}`);
  if (bad.length > 0) process.exitCode = 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
