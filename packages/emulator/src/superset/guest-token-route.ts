/** The Superset mode's guest-token route: CSRF first, then the user's grant, then the body's validation. */
import type { Hono } from 'hono';
import { SUPERSET_CSRF_HEADER, SUPERSET_ROUTES, SUPERSET_SESSION_COOKIE } from '@embedded-dashboard/protocol';
import type { EmulatorEnv } from '../http/body.js';
import { BAD_REQUEST, json, normalizeUuid, readJson, supersetErrors, type SupersetRouteContext } from './http.js';
import type { SupersetSampleDashboard } from './sample-data.js';
import { checkCsrf, signGuestToken, verifyUserToken, type GuestClaims } from './tokens.js';
import { validateGuestTokenBody } from './validate.js';

export function registerGuestTokenRoute(app: Hono<EmulatorEnv>, { config, withFaults, byUuid }: SupersetRouteContext): void {
  const usersById = new Map([...config.users].map(([username, user]) => [user.id, { username, ...user }]));
  const findDashboard = (idOrSlugOrUuid: string): SupersetSampleDashboard | undefined =>
    config.dashboards.find((d) => String(d.id) === idOrSlugOrUuid || d.slug === idOrSlugOrUuid) ?? byUuid.get(normalizeUuid(idOrSlugOrUuid) ?? '');

  app.post(
    SUPERSET_ROUTES.guestToken,
    withFaults(
      'guestToken',
      () => ({ result: 'no token here' }),
      async (c) => {
        // Flask-WTF's CSRFProtect runs before the view, and so before the bearer token is read.
        const cookie = new RegExp(`(?:^|;\\s*)${SUPERSET_SESSION_COOKIE}=([^;]*)`).exec(c.req.header('cookie') ?? '')?.[1];
        const csrfProblem = await checkCsrf(config.secretKey, c.req.header(SUPERSET_CSRF_HEADER), cookie);
        if (csrfProblem) return supersetErrors(400, `400 Bad Request: ${csrfProblem}`, 'GENERIC_BACKEND_ERROR');
        const checked = await verifyUserToken(config.secretKey, c.req.header('authorization'), 'access', config.now());
        if (!checked.ok) return json({ msg: checked.msg }, checked.status);
        if (!usersById.get(checked.userId)?.grantGuestToken) return json({ message: 'Forbidden' }, 403);
        const body = await readJson(c, config.maxBodyBytes, BAD_REQUEST);
        if (!body.ok) return body.response;
        const validated = validateGuestTokenBody(body.value);
        if (!validated.ok) return validated.status === 500 ? json({ message: 'Fatal error' }, 500) : json({ message: validated.errors }, 400);
        const { user, resources, rls } = validated.value;
        if (resources.some((resource) => !findDashboard(resource.id))) return json({ message: 'EmbeddedDashboard not found.' }, 400);
        const iat = config.now() / 1000;
        const claims: GuestClaims = {
          user,
          resources,
          rls_rules: rls,
          iat,
          exp: iat + config.guestTokenSeconds,
          aud: config.guestTokenAudience,
          type: 'guest',
        };
        return json({ token: await signGuestToken(config.guestTokenSecret, claims) });
      },
    ),
  );
}
