import { SignJWT } from 'jose';
import { SUPERSET_GUEST_TOKEN, type SupersetGuestTokenRequest, type TokenResponse } from '@embedded-dashboard/protocol';

/**
 * Signs guest tokens in this process, as Superset's `create_guest_access_token` does with the
 * same `GUEST_TOKEN_JWT_SECRET`: `user`, `resources`, `rls_rules`, `iat`, `exp` (now + the
 * lifetime), `aud` and `type: "guest"`, HS256. Superset checks them with that secret and
 * audience (`parse_jwt_guest_token`), so no request to Superset is ever made: not per view, not at
 * startup. `expiresAt` is the token's own `exp`.
 */
export function supersetLocalSigner(settings: { secret: Uint8Array; audience: string; ttlSeconds: number }, now: () => number) {
  return async (request: SupersetGuestTokenRequest): Promise<TokenResponse> => {
    const serverTime = now();
    const iat = Math.floor(serverTime / 1000);
    const exp = iat + settings.ttlSeconds;
    const token = await new SignJWT({ user: request.user, resources: request.resources, rls_rules: request.rls, type: SUPERSET_GUEST_TOKEN.type })
      .setProtectedHeader({ alg: SUPERSET_GUEST_TOKEN.algorithm, typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setAudience(settings.audience)
      .sign(settings.secret);
    return { token, expiresAt: exp * 1000, serverTime };
  };
}
