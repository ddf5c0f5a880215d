export { createWorker } from './worker.js';
export type { BffWorker, WorkerOptions } from './worker.js';
export { EmbedStore } from './embed-store.js';
export { createDurableObjectStore, DurableObjectStoreError } from './durable-object-store.js';
export type { DurableObjectStore, DurableObjectStoreOptions, EmbedStoreNamespace, EmbedStoreStub } from './durable-object-store.js';
export { parseWorkerBindings, STORE_BINDING } from './bindings.js';
export type { WorkerConfig } from './bindings.js';
