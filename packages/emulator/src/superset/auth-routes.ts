/** The Superset mode's user routes: login, refresh, and the CSRF token with its session cookie. */
import type { Hono } from 'hono';
import { SUPERSET_ROUTES, SUPERSET_SESSION_COOKIE, SUPERSET_USER_TOKEN_SECONDS } from '@embedded-dashboard/protocol';
import type { EmulatorEnv } from '../http/body.js';
import { json, readJson, type SupersetRouteContext } from './http.js';
import { issueCsrf, signUserToken, verifyUserToken } from './tokens.js';

export function registerAuthRoutes(app: Hono<EmulatorEnv>, { config, withFaults }: SupersetRouteContext): void {
  app.post(
    SUPERSET_ROUTES.login,
    withFaults(
      'login',
      () => ({ access: 'token' }),
      async (c) => {
        const body = await readJson(c, config.maxBodyBytes, 'Request payload is not JSON');
        if (!body.ok) return body.response;
        const problems = validateLogin(body.value);
        if (problems) return json({ message: problems }, 400);
        const { username, password, refresh } = body.value as { username: string; password: string; refresh?: boolean };
        const user = config.users.get(username);
        if (!user || user.password !== password) return json({ message: 'Not authorized' }, 401);
        const now = config.now();
        const answer: Record<string, string> = { access_token: await signUserToken(config.secretKey, user.id, 'access', true, now, config.accessTokenSeconds) };
        if (refresh) answer.refresh_token = await signUserToken(config.secretKey, user.id, 'refresh', false, now, SUPERSET_USER_TOKEN_SECONDS.refresh);
        return json(answer);
      },
    ),
  );

  app.post(
    SUPERSET_ROUTES.refresh,
    withFaults(
      'refresh',
      () => ({}),
      async (c) => {
        const checked = await verifyUserToken(config.secretKey, c.req.header('authorization'), 'refresh', config.now());
        if (!checked.ok) return json({ msg: checked.msg }, checked.status);
        return json({ access_token: await signUserToken(config.secretKey, checked.userId, 'access', false, config.now(), config.accessTokenSeconds) });
      },
    ),
  );

  const csrfRoute = withFaults(
    'csrfToken',
    () => ({ result: null }),
    async (c) => {
      const checked = await verifyUserToken(config.secretKey, c.req.header('authorization'), 'access', config.now());
      if (!checked.ok) return json({ msg: checked.msg }, checked.status);
      const { cookie, token } = await issueCsrf(config.secretKey, config.now());
      return json({ result: token }, 200, { 'Set-Cookie': `${SUPERSET_SESSION_COOKIE}=${cookie}; HttpOnly; Path=/; SameSite=Lax` });
    },
  );
  // Flask routes the path with and without its trailing slash alike.
  app.get(SUPERSET_ROUTES.csrfToken, csrfRoute);
  app.get(SUPERSET_ROUTES.csrfToken.slice(0, -1), csrfRoute);
}

/** Flask-AppBuilder's login schema (marshmallow): the same messages for the same mistakes. */
function validateLogin(value: unknown): Record<string, string[]> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { _schema: ['Invalid input type.'] };
  const body = value as Record<string, unknown>;
  const problems: Record<string, string[]> = {};
  for (const field of ['username', 'password', 'provider'] as const) {
    if (!(field in body)) problems[field] = ['Missing data for required field.'];
    else if (body[field] === null) problems[field] = ['Field may not be null.'];
    else if (typeof body[field] !== 'string') problems[field] = ['Not a valid string.'];
  }
  if (typeof body.provider === 'string' && body.provider !== 'db') {
    problems.provider =
      body.provider === 'ldap'
        ? ['Alternative authentication provider is not allowed']
        : ['Must be one of: db, ldap.', 'Alternative authentication provider is not allowed'];
  }
  if ('refresh' in body && typeof body.refresh !== 'boolean') problems.refresh = ['Not a valid boolean.'];
  return Object.keys(problems).length > 0 ? problems : undefined;
}
