import { EMULATOR_LISTENING_PREFIX } from '@embedded-dashboard/protocol';
import { parseArgs, USAGE } from './args.js';
import { DEFAULT_API_KEYS } from '../options.js';
import { startEmulator } from '../server.js';

/** The `embedded-dashboard-emulator` command (ARCHITECTURE §7). */
async function main(argv: readonly string[]): Promise<void> {
  const { command, problems } = parseArgs(argv);
  if (!command) {
    for (const problem of problems) console.error(`embedded-dashboard-emulator: ${problem}`);
    process.exitCode = 2;
    return;
  }
  if (command.kind === 'help') {
    console.log(USAGE);
    return;
  }
  let running;
  try {
    running = await startEmulator(command.options);
  } catch (error) {
    console.error(`embedded-dashboard-emulator: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  console.log(`${EMULATOR_LISTENING_PREFIX}${running.url}`);
  for (const key of command.options.apiKeys ?? DEFAULT_API_KEYS) console.log(`api key (${key.environment}): ${key.token}`);
  for (const secret of command.options.embedSecrets ?? []) console.log(`embed secret (Customer): ${secret.id}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`emulator stopping (${signal})`);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`embedded-dashboard-emulator: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

await main(process.argv.slice(2));
