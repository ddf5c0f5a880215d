// #region mount-bff
// app/embed/[...path]/route.ts: the BFF's token routes (POST /embed/token, /embed/token/rotate).
import { createBffApp } from '@embedded-dashboard/bff';
import { UserGroupClient } from '@embedded-dashboard/client';
import { SESSION_COOKIE, env } from '../../../lib/session';

export const runtime = 'nodejs';

let bff: ReturnType<typeof createBffApp> | undefined;
// Created on the first request, not at build time (the environment is only there at run time).
const app = () =>
  (bff ??= createBffApp({
    upstream: new UserGroupClient({ baseUrl: env('EMBED_UPSTREAM_URL'), apiToken: env('EMBED_API_TOKEN') }),
    session: { secret: env('SESSION_SECRET'), cookie: SESSION_COOKIE }, // the cookie your login sets
    secrets: [env('EMBED_API_TOKEN')], // redacted from every log line
  }));

export const POST = (request: Request) => app().fetch(request);
// #endregion mount-bff
