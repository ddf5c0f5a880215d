import { EMULATOR_LISTENING_PREFIX } from '@embedded-dashboard/protocol';
import { parseArgs, USAGE } from './args.js';
import { DEFAULT_API_KEYS } from '../options.js';
import { startEmulator, startMetabaseEmulator, startSupersetEmulator } from '../server.js';
import { DEFAULT_SUPERSET_USERS } from '../superset/index.js';

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
    if (command.kind === 'start-superset') {
      const superset = await startSupersetEmulator(command.options);
      console.log(`${EMULATOR_LISTENING_PREFIX}${superset.url}`);
      console.log('vendor: superset (Apache Superset 6.1.0 as the toolkit uses it)');
      for (const user of command.options.users ?? DEFAULT_SUPERSET_USERS.filter((u) => u.grantGuestToken)) console.log(`service account: ${user.username}`);
      console.log(`guest token audience: ${superset.emulator.guestToken.audience}`);
      for (const dashboard of superset.emulator.dashboards) console.log(`embedded dashboard ${dashboard.slug}: ${dashboard.uuid}`);
      running = { close: superset.close };
    } else if (command.kind === 'start-metabase') {
      const metabase = await startMetabaseEmulator(command.options);
      console.log(`${EMULATOR_LISTENING_PREFIX}${metabase.url}`);
      console.log('vendor: metabase (guest embeds as Metabase serves them)');
      console.log(`embedding secret: ${command.options.secretKey === undefined ? 'the development key (DEFAULT_METABASE_SECRET)' : 'as given'}`);
      for (const item of metabase.emulator.items) {
        const parameters = Object.entries(item.parameters)
          .map(([slug, kind]) => `${slug}=${kind}`)
          .join(',');
        console.log(`${item.kind} ${item.id}${item.enableEmbedding === false ? ' (not published)' : ''}: ${parameters || 'no parameters'}`);
      }
      running = { close: metabase.close };
    } else running = await startEmulator(command.options);
  } catch (error) {
    console.error(`embedded-dashboard-emulator: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  if (command.kind === 'start' && 'url' in running) {
    console.log(`${EMULATOR_LISTENING_PREFIX}${running.url}`);
    for (const key of command.options.apiKeys ?? DEFAULT_API_KEYS) console.log(`api key (${key.environment}): ${key.token}`);
    for (const secret of command.options.embedSecrets ?? []) console.log(`embed secret (Customer): ${secret.id}`);
  }

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
