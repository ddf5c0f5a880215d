export { createLambdaHandler } from './handler.js';
export type { LambdaHandler, LambdaHandlerOptions } from './handler.js';
export { parseLambdaEnvironment } from './env.js';
export type { LambdaConfig } from './env.js';
export type { LambdaHttpEvent, LambdaHttpResult } from './event.js';
