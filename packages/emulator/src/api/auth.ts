import { EmulatorErrorCode, VENDOR_AUTH_SCHEME, type Environment } from '@embedded-dashboard/protocol';
import { EmulatorHttpError } from '../http/errors.js';

const unauthorized = (message: string) => new EmulatorHttpError(EmulatorErrorCode.unauthorized, message);

/**
 * The API key in `Authorization: Token <key>` (or the Customer API's `Explo-Authorization`;
 * scheme word exactly `Token`, one space) and the environment it is bound to. Messages never
 * repeat the presented key.
 */
export function authenticate(
  header: string | undefined,
  apiKeys: ReadonlyMap<string, Environment>,
  headerName = 'Authorization',
): { apiKey: string; environment: Environment } {
  const shown = headerName.replace(/(^|-)[a-z]/g, (m) => m.toUpperCase());
  if (header === undefined || header === '') throw unauthorized(`missing ${shown} header; expected "Token <API key>"`);
  const prefix = `${VENDOR_AUTH_SCHEME} `;
  if (!header.startsWith(prefix)) throw unauthorized(`${shown} must use the scheme "Token": "Token <API key>"`);
  const apiKey = header.slice(prefix.length);
  const environment = apiKeys.get(apiKey);
  if (!environment) throw unauthorized('unknown API key');
  return { apiKey, environment };
}
