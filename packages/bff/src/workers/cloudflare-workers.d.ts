/**
 * The part of workerd's built-in `cloudflare:workers` module this package uses, for type-checking
 * its own sources without the global types of @cloudflare/workers-types (they clash with the DOM
 * library). Not shipped: the emitted declarations import `cloudflare:workers`, which a Worker
 * project types with @cloudflare/workers-types.
 */
declare module 'cloudflare:workers' {
  export interface DurableObjectStorage {
    get<T = unknown>(key: string): Promise<T | undefined>;
    put<T>(key: string, value: T): Promise<void>;
    deleteAll(): Promise<void>;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
  }
  export interface DurableObjectState {
    readonly storage: DurableObjectStorage;
  }
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
}
