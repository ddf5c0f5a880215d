/** `--vendor superset`'s arguments (args.ts parses the rest). */
import type { StartSupersetEmulatorOptions } from '../server.js';
import { type CliCommand, EXPLO_ONLY_FLAGS, embedOrigins, integer, listenOptions, singleValue } from './arg-values.js';

/** `--vendor superset`: its own options; Explo's are refused, one line each. */
export function parseSupersetArgs(values: Map<string, string[]>, admin: boolean, problems: string[]): { command?: CliCommand; problems: string[] } {
  for (const flag of EXPLO_ONLY_FLAGS) if (values.has(flag)) problems.push(`${flag} is an Explo option; not with --vendor superset`);
  const single = singleValue(values, problems);
  const options: StartSupersetEmulatorOptions = { admin, ...listenOptions(single, problems) };
  const users = values.get('--superset-user');
  if (users) {
    options.users = [];
    for (const spec of users) {
      const colon = spec.indexOf(':');
      const username = spec.slice(0, colon);
      if (colon <= 0 || colon === spec.length - 1 || !/^[\x21-\x7e]+$/.test(username))
        problems.push('--superset-user must be NAME:PASSWORD, NAME visible ASCII');
      else if (options.users.some((user) => user.username === username)) problems.push(`--superset-user repeats ${username}`);
      else options.users.push({ username, password: spec.slice(colon + 1), grantGuestToken: true });
    }
  }
  const secret = single('--guest-secret');
  if (secret !== undefined) {
    if (secret === '') problems.push('--guest-secret must not be empty');
    else options.guestTokenSecret = secret;
  }
  const audience = single('--guest-audience');
  if (audience !== undefined) {
    if (audience === '') problems.push('--guest-audience must not be empty');
    else options.guestTokenAudience = audience;
  }
  const ttl = single('--guest-token-ttl');
  if (ttl !== undefined) {
    options.guestTokenSeconds = integer('--guest-token-ttl', ttl, 31_536_000, problems);
    if (options.guestTokenSeconds === 0) problems.push('--guest-token-ttl must be at least 1');
  }
  const origins = embedOrigins(values, problems);
  if (origins) options.frameAncestors = origins;
  return problems.length > 0 ? { problems } : { command: { kind: 'start-superset', options }, problems };
}
