/**
 * One Lambda cold start (row 8c), in a fresh Node process as an execution environment is: imports
 * the handler (ours, `@embedded-dashboard/bff/lambda`, or a bare Hono app through the same
 * adapter), invokes it once with the function URL event on stdin, and prints the milliseconds
 * from this process's start to the answer, and the status.
 */
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8')) as { handler: 'bff' | 'bare'; event: unknown };
type Handler = (event: never, context: unknown) => Promise<{ statusCode: number }>;
let handler: Handler;
if (input.handler === 'bff') {
  const { createLambdaHandler } = await import('@embedded-dashboard/bff/lambda');
  handler = createLambdaHandler({ report: () => undefined });
} else {
  const [{ Hono }, { handle }] = await Promise.all([import('hono'), import('hono/aws-lambda')]);
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  handler = handle(app) as unknown as Handler;
}
const { statusCode } = await handler(input.event as never, {});
// performance.now() counts from this process's time origin: its start.
console.log(JSON.stringify({ ms: performance.now(), status: statusCode }));
process.exit(0);
