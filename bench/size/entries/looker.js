// Looker's current entry point (the v2 API); everything else hangs off the object it returns.
export { getEmbedSDK } from '@looker/embed-sdk';
