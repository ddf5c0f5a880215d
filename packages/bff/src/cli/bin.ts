import { runCli } from './main.js';
import { runProvision } from './provision.js';
import { redactLine } from '../observability/logger.js';

try {
  const argv = process.argv.slice(2);
  if (argv[0] === 'provision')
    await runProvision(argv.slice(1), process.env, { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) });
  else await runCli(argv);
} catch (error) {
  // A start-up failure (e.g. the store cannot be created): one line, with secrets scrubbed.
  const secrets = [process.env.EMBED_API_TOKEN, process.env.EMBED_SESSION_SECRET, process.env.EMBED_REDIS_URL].filter((s): s is string => !!s);
  process.stderr.write(`bff: cannot start: ${redactLine(error instanceof Error ? error.message : String(error), secrets)}\n`);
  process.exitCode = 1;
}
