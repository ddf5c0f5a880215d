/**
 * The Lambda handler as an integrator deploys it: `@embedded-dashboard/bff/lambda` from the
 * packed tarball, in a Node process of its own in the consumer project (as a Lambda execution
 * environment is), invoked with a function URL event and an HTTP API event with a base64 body,
 * against the installed emulator CLI and a real redis-server.
 */
import { SignJWT } from 'jose';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { functionUrlEvent, httpApiEvent } from '../../packages/bff/test/support/lambda-events.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { redisServerTool } from '../support/tools.js';
import { runOk, startServer, type ServerProcess } from './consumer.js';

const consumerDir = inject('consumerDir');
const redisTool = redisServerTool();
const SESSION_SECRET = 'lambda-packaging-session-secret-0123456789abcdef';

/** One execution environment: imports the handler, invokes it with each event in turn, prints the results. */
const INVOKE = `import { createLambdaHandler } from '@embedded-dashboard/bff/lambda';
const handler = createLambdaHandler();
const results = [];
for (const make of JSON.parse(process.env.EVENTS)) {
  const event = JSON.parse(make.replace('{token}', results.length ? JSON.parse(results.at(-1).body).token : ''));
  // An event marked base64 carries its body as text here; encoded as API Gateway would.
  if (event.isBase64Encoded) event.body = Buffer.from(event.body).toString('base64');
  results.push(await handler(event, {}));
}
console.log(JSON.stringify(results));
process.exit(0);`;

describe.skipIf(!redisTool.available)('the Lambda handler, installed from the packed tarball', () => {
  let redis: RedisServer;
  let emulator: ServerProcess | undefined;
  beforeAll(async () => {
    redis = await startRedisServer(redisTool.path);
    emulator = await startServer(join(consumerDir, 'node_modules/.bin/embedded-dashboard-emulator'), ['--port', '0', '--rate-limit', '0'], {
      cwd: consumerDir,
      readyText: 'emulator listening on ',
    });
  });
  afterAll(async () => {
    await emulator?.stop();
    await redis?.dispose();
  });

  it('serves a token for a function URL event and rotates it for an HTTP API event with a base64 body', async () => {
    const jwt = await new SignJWT({ org_id: 'acme', org_name: 'Acme Corp', embed_properties: { region: 'EMEA' } })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SESSION_SECRET));
    const headers = { 'content-type': 'application/json' };
    const cookies = [`__Host-session=${jwt}`];
    const events = [
      functionUrlEvent({ path: '/embed/token', cookies, headers, body: '{}' }),
      // `{token}` becomes the token of the answer before (replaced in the JSON text, so the body is built as plain JSON).
      { ...httpApiEvent({ path: '/embed/token/rotate', cookies, headers }), body: '{"token":"{token}"}', isBase64Encoded: true },
      functionUrlEvent({ path: '/embed/token', headers, body: '{}' }),
    ].map((event) => JSON.stringify(event));
    const { stdout } = await runOk(process.execPath, ['--input-type=module', '-e', INVOKE], {
      cwd: consumerDir,
      env: {
        EVENTS: JSON.stringify(events),
        EMBED_UPSTREAM_URL: emulator!.url,
        EMBED_API_TOKEN: 'dev-customer-key',
        EMBED_SESSION_SECRET: SESSION_SECRET,
        EMBED_SESSION_COOKIE: '__Host-session',
        EMBED_REDIS_URL: redis.url,
        EMBED_LOG_LEVEL: 'warn',
      },
    });
    const [first, rotated, anonymous] = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      statusCode: number;
      body: string;
      headers: Record<string, string>;
    }[];
    expect(first!.statusCode).toBe(200);
    expect(first!.headers['cache-control']).toBe('no-store');
    const token = (JSON.parse(first!.body) as { token: string }).token;
    expect(rotated!.statusCode).toBe(200);
    expect((JSON.parse(rotated!.body) as { token: string }).token).not.toBe(token);
    expect(anonymous!.statusCode).toBe(401);
  });
});
