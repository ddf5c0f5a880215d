export { createLambdaHandler } from './handler.js';
export type { LambdaHandler, LambdaHandlerOptions } from './handler.js';
export { parseLambdaEnvironment } from './config.js';
export type { LambdaConfig } from './config.js';
export type { LambdaHttpEvent, LambdaHttpResult } from './event.js';
