/** `--vendor metabase`'s arguments (args.ts parses the rest). */
import { isMetabaseSecret, type MetabaseParameterKind } from '@embedded-dashboard/protocol';
import type { StartMetabaseEmulatorOptions } from '../server.js';
import { parseItems } from '../metabase/options.js';
import { METABASE_SAMPLE_ITEMS } from '../metabase/sample-data.js';
import { type CliCommand, EXPLO_ONLY_FLAGS, SUPERSET_FLAGS, embedOrigins, listenOptions, singleValue } from './arg-values.js';

/** `--vendor metabase`: its own options; Explo's and Superset's are refused, one line each. Problems never repeat the secret. */
export function parseMetabaseArgs(values: Map<string, string[]>, admin: boolean, problems: string[]): { command?: CliCommand; problems: string[] } {
  for (const flag of EXPLO_ONLY_FLAGS) if (values.has(flag)) problems.push(`${flag} is an Explo option; not with --vendor metabase`);
  for (const flag of SUPERSET_FLAGS) if (values.has(flag)) problems.push(`${flag} is a --vendor superset option`);
  const single = singleValue(values, problems);
  const options: StartMetabaseEmulatorOptions = { admin, ...listenOptions(single, problems) };
  const secret = single('--metabase-secret');
  if (secret !== undefined) {
    if (!isMetabaseSecret(secret)) problems.push('--metabase-secret must be 64 hexadecimal characters');
    else options.secretKey = secret;
  }
  const specs = values.get('--metabase-item');
  if (specs) {
    const items: NonNullable<StartMetabaseEmulatorOptions['items']> = [];
    for (const spec of specs) {
      const match = /^(dashboard|question):([1-9]\d{0,8})(?::(.*))?$/.exec(spec);
      if (!match) {
        problems.push(`--metabase-item must be KIND:ID[:SLUG=KIND,...], got ${JSON.stringify(spec.slice(0, 80))}`);
        continue;
      }
      const parameters: Record<string, MetabaseParameterKind> = {};
      let bad = false;
      for (const pair of match[3] ? match[3].split(',') : []) {
        const [slug, kind, extra] = pair.split('=');
        if (!slug || !kind || extra !== undefined || !['locked', 'enabled', 'disabled'].includes(kind)) bad = true;
        else parameters[slug] = kind as MetabaseParameterKind;
      }
      if (bad) problems.push(`--metabase-item ${match[1]}:${match[2]}: each parameter must be SLUG=locked|enabled|disabled`);
      else {
        const kind = match[1] as 'dashboard' | 'question';
        const id = Number(match[2]);
        const title = `${kind === 'dashboard' ? 'Dashboard' : 'Question'} ${id}`;
        // A dashboard gets the sample cards; a question is its own one card.
        const cards = kind === 'dashboard' ? METABASE_SAMPLE_ITEMS[0]!.cards : [{ id, name: title, display: 'table' as const }];
        items.push({ kind, id, title, parameters, cards });
      }
    }
    options.items = items;
  }
  const origins = embedOrigins(values, problems);
  if (origins) options.frameAncestors = origins;
  if (problems.length === 0 && options.items) {
    try {
      parseItems(options.items);
    } catch (error) {
      problems.push(`--metabase-item: ${(error as Error).message}`);
    }
  }
  return problems.length > 0 ? { problems } : { command: { kind: 'start-metabase', options }, problems };
}
