/** What every vendor's arguments share: the flag sets, the command, and the checks of values. */
import type { StartEmulatorOptions, StartMetabaseEmulatorOptions, StartSupersetEmulatorOptions } from '../server.js';

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'start'; options: StartEmulatorOptions }
  | { kind: 'start-superset'; options: StartSupersetEmulatorOptions }
  | { kind: 'start-metabase'; options: StartMetabaseEmulatorOptions };

export const SUPERSET_FLAGS = new Set(['--superset-user', '--guest-secret', '--guest-audience', '--guest-token-ttl']);
export const METABASE_FLAGS = new Set(['--metabase-secret', '--metabase-item']);
export const EXPLO_ONLY_FLAGS = [
  '--api-key',
  '--data',
  '--token-ttl',
  '--rotation-grace',
  '--dashboard-refresh',
  '--rate-limit',
  '--rate-limit-burst',
  '--embed-secret',
];

export const VALUE_FLAGS = new Set([
  '--port',
  '--host',
  '--api-key',
  '--data',
  '--token-ttl',
  '--rotation-grace',
  '--embed-origin',
  '--dashboard-refresh',
  '--rate-limit',
  '--rate-limit-burst',
  '--embed-secret',
  '--vendor',
  ...SUPERSET_FLAGS,
  ...METABASE_FLAGS,
]);
export const ORIGIN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:(\d{1,5}|\*))?$/;

export function integer(flag: string, text: string, max: number, problems: string[]): number | undefined {
  if (!/^\d+$/.test(text) || Number(text) > max) {
    problems.push(`${flag} must be an integer from 0 to ${max}, got ${JSON.stringify(text)}`);
    return undefined;
  }
  return Number(text);
}

/** The one value of a flag that may be given once; a second one is a problem. */
export function singleValue(values: Map<string, string[]>, problems: string[]): (flag: string) => string | undefined {
  return (flag) => {
    const list = values.get(flag);
    if (list && list.length > 1) problems.push(`${flag} given more than once`);
    return list?.[0];
  };
}

/** `--port` and `--host`, the same for every vendor. */
export function listenOptions(single: (flag: string) => string | undefined, problems: string[]): { port?: number; host?: string } {
  const options: { port?: number; host?: string } = {};
  const port = single('--port');
  if (port !== undefined) options.port = integer('--port', port, 65_535, problems);
  const host = single('--host');
  if (host !== undefined) {
    if (host.trim() === '' || /\s/.test(host)) problems.push('--host must be a host name or address');
    else options.host = host;
  }
  return options;
}

/** `--embed-origin`, each an origin (port `*` allowed); the list as given, or undefined when none. */
export function embedOrigins(values: Map<string, string[]>, problems: string[]): string[] | undefined {
  const origins = values.get('--embed-origin');
  for (const origin of origins ?? []) {
    if (!ORIGIN.test(origin)) problems.push(`--embed-origin must be an origin like http://localhost:5174 or http://localhost:*, got ${JSON.stringify(origin)}`);
  }
  return origins;
}
