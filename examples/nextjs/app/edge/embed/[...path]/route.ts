// #region mount-bff-edge
// app/edge/embed/[...path]/route.ts: the same token routes in Next.js's edge runtime.
import { createBffApp } from '@embedded-dashboard/bff';
import { UserGroupClient } from '@embedded-dashboard/client';
import { SESSION_COOKIE, env } from '../../../../lib/session';

export const runtime = 'edge';

let bff: ReturnType<typeof createBffApp> | undefined;
const app = () =>
  (bff ??= createBffApp({
    basePath: '/edge/embed',
    // fetch is the edge runtime's only HTTP client, and it sends no GET with a body: the vendor's Customer API.
    upstream: new UserGroupClient({ baseUrl: env('EMBED_UPSTREAM_URL'), apiToken: env('EMBED_API_TOKEN'), api: 'explo-customer' }),
    session: { secret: env('SESSION_SECRET'), cookie: SESSION_COOKIE },
    secrets: [env('EMBED_API_TOKEN')],
    // No `store`: the in-memory default, one per edge isolate (see "Runtimes" in the BFF README).
  }));

export const POST = (request: Request) => app().fetch(request);
// #endregion mount-bff-edge
