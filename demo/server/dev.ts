/**
 * `npm run dev`: Vite's dev server (HMR) for the pages on `DEMO_PORT` (default 5174), and the
 * demo server (sign-in, demo API, BFF, emulator) in this process on a free port, to which Vite
 * proxies everything that is not a page or a module.
 */
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { startDemo } from './start-demo.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const demoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Paths the demo server answers; Vite serves everything else. */
const PROXIED = ['/embed', '/login', '/logout', '/api', '/healthz'];

const freePort = (host: string) =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function main(): Promise<void> {
  const host = process.env.DEMO_HOST || '127.0.0.1';
  const asked = Number(process.env.DEMO_PORT ?? 5174);
  if (!Number.isInteger(asked) || asked < 0 || asked > 65_535) throw new Error('DEMO_PORT must be an integer from 0 to 65535');
  // The BFF and the emulator must know the page origin before Vite listens on it.
  const port = asked === 0 ? await freePort(host) : asked;
  const pageOrigins = [`http://${host}:${port}`, `http://${host === '127.0.0.1' ? 'localhost' : '127.0.0.1'}:${port}`];
  const demo = await startDemo({ port: 0, host, publicDir: false, extraOrigins: pageOrigins });
  const target = demo.url;

  const vite = await createServer({
    configFile: `${repositoryRoot}vite.config.ts`,
    root: demoRoot,
    server: {
      host,
      port,
      strictPort: true,
      proxy: Object.fromEntries(PROXIED.map((path) => [path, { target, changeOrigin: false, xfwd: true }])),
    },
  });
  await vite.listen();
  console.log(`demo ready: http://${host}:${port}/ (dev server with HMR; the demo server runs at ${target})`);

  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(130);
    stopping = true;
    setTimeout(() => process.exit(1), 5000).unref();
    void Promise.allSettled([vite.close(), demo.close()]).then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: NodeJS.ErrnoException) => {
  console.error(`demo dev: ${error.code === 'EADDRINUSE' ? 'the port is in use; set DEMO_PORT to another port, or 0' : error.message}`);
  process.exit(1);
});
