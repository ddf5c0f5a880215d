import { EmulatorErrorCode, VENDOR_AUTH_SCHEME, type Environment } from '@embedded-dashboard/protocol';
import { EmulatorHttpError } from '../http/errors.js';

const unauthorized = (message: string) => new EmulatorHttpError(EmulatorErrorCode.unauthorized, message);

/**
 * The environment of the API key in `Authorization: Token <key>` (scheme word exactly `Token`,
 * one space). Messages never repeat the presented key.
 */
export function authenticate(header: string | undefined, apiKeys: ReadonlyMap<string, Environment>): Environment {
  if (header === undefined || header === '') throw unauthorized('missing Authorization header; expected "Token <API key>"');
  const prefix = `${VENDOR_AUTH_SCHEME} `;
  if (!header.startsWith(prefix)) throw unauthorized('Authorization must use the scheme "Token": "Token <API key>"');
  const environment = apiKeys.get(header.slice(prefix.length));
  if (!environment) throw unauthorized('unknown API key');
  return environment;
}
