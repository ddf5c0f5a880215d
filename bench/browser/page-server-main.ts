import { PAGES_LISTENING_PREFIX, startPageServer } from './page-server.js';

/*
 * The host app of rows 4 and 5 in a process of its own, as every other server of the bench:
 * in the orchestrating process it would share an event loop with playwright, which is busy
 * with the browser's protocol traffic exactly while the page loads, and only "ours" fetches
 * from it during a load (the element and the token), so only "ours" would pay for that.
 * Configured by the environment; prints `pages listening on URL` when ready. The BFF is mounted
 * in this process (the library), as in an integrator's Node server.
 */
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const pages = await startPageServer({
  emulatorUrl: env('PAGES_EMULATOR_URL'),
  elementScript: env('PAGES_ELEMENT_SCRIPT'),
  cookie: env('PAGES_SESSION_COOKIE'),
  port: Number(env('PAGES_PORT')),
});
console.log(`${PAGES_LISTENING_PREFIX}${pages.url}`);
process.once('SIGTERM', () => void pages.close().then(() => process.exit(0)));
