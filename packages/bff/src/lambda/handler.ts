import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { createBffApp } from '../app.js';
import { appOptions, vendorOptions } from '../env/app-options.js';
import { redisSecrets } from '../env/redis-config.js';
import { BffError } from '../errors/bff-error.js';
import type { BffAppOptions } from '../options.js';
import { createRedisStore } from '../store/redis/index.js';
import type { TokenStore } from '../store/types.js';
import { parseLambdaEnvironment, type LambdaConfig } from './env.js';
import { eventProblem, type LambdaHttpEvent, type LambdaHttpResult } from './event.js';

/** The function's handler: `export const handler = createLambdaHandler()`. */
export type LambdaHandler = (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>;

export interface LambdaHandlerOptions {
  /** Where the configuration is read. Default `process.env`, read on the first invocation. */
  env?: Readonly<Record<string, unknown>>;
  /** More `createBffApp` options over those the environment makes (an `identify` hook, a `basePath`, …). */
  app?: (config: LambdaConfig) => Partial<Omit<BffAppOptions, 'upstream' | 'store'>>;
  /** Where the configuration problems go, one line each. Default `console.error` (CloudWatch). */
  report?: (line: string) => void;
}

const notConfigured = new BffError('internal', 'the service is not configured', { retryable: false });

/**
 * The BFF as an AWS Lambda function behind API Gateway (HTTP API, payload 2.0, or REST API) or a
 * function URL, through Hono's adapter: `createBffApp` configured from the function's
 * environment (the CLI's keys and rules, `parseLambdaEnvironment`), the vendor client over
 * Node's HTTP (both vendor APIs), and the Redis store, required (execution environments share
 * nothing else). The app, its Redis connection and its client are built on the first
 * invocation of an execution environment and kept for the next ones. A configuration with
 * problems is reported once, one line per problem, and every request is answered 500
 * `internal` without detail; a malformed event is answered 400.
 *
 * @example
 * ```ts
 * import { createLambdaHandler } from '@embedded-dashboard/bff/lambda';
 * export const handler = createLambdaHandler();
 * ```
 */
export function createLambdaHandler(options: LambdaHandlerOptions = {}): LambdaHandler {
  const report = options.report ?? ((line: string) => console.error(line));
  let built: ((event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>) | BffError | undefined;
  const build = () => {
    const { config, problems } = parseLambdaEnvironment(options.env ?? process.env);
    if (config === undefined) {
      for (const problem of problems) report(`config: ${problem}`);
      return notConfigured;
    }
    const store: TokenStore = createRedisStore({ url: config.redisUrl, ...config.redisTopology });
    const app: Hono = createBffApp({
      ...appOptions(config, redisSecrets(config.redisUrl)),
      ...vendorOptions(config),
      store,
      ...options.app?.(config),
    });
    return handle(app) as unknown as (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>;
  };
  return async function embedBffLambda(event, context) {
    built ??= build();
    if (built instanceof BffError) return result(built);
    const problem = eventProblem(event);
    if (problem !== undefined) return result(new BffError('bad_request', problem));
    return built(event, context);
  };
}

/** A refusal in the function URL's / API Gateway's response shape. */
async function result(error: BffError): Promise<LambdaHttpResult> {
  const response = error.getResponse();
  return { statusCode: response.status, headers: Object.fromEntries(response.headers), body: await response.text(), isBase64Encoded: false };
}
