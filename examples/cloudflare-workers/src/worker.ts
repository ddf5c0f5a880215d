// #region worker
// src/worker.ts: the BFF as a Worker. Its configuration is the Worker's variables and secrets
// (wrangler.jsonc, `wrangler secret put`); its store is the EmbedStore Durable Object class.
import { createWorker, EmbedStore } from '@embedded-dashboard/bff/workers';

// The Durable Object class the EMBED_STORE binding names must be exported by the Worker.
export { EmbedStore };

export default createWorker();
// #endregion worker
