import { DEMO_API, type DemoExpireResult, type DemoSessionInfo, type DemoVendorStatus } from '../../shared/api.js';

/** A demo API call that answered 401: the session is gone. */
export class SignedOutError extends Error {
  override name = 'SignedOutError';
}

async function call<T>(path: string, init?: { body: unknown }): Promise<T> {
  const response = await fetch(path, {
    method: init ? 'POST' : 'GET',
    headers: init ? { 'Content-Type': 'application/json' } : {},
    body: init ? JSON.stringify(init.body) : null,
    credentials: 'same-origin',
  });
  if (response.status === 401) throw new SignedOutError('signed out');
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return (await response.json()) as T;
}

export const demoApi = {
  session: () => call<DemoSessionInfo>(DEMO_API.session),
  expireToken: () => call<DemoExpireResult>(DEMO_API.expireToken, { body: {} }),
  setOutage: (on: boolean) => call<DemoVendorStatus>(DEMO_API.outage, { body: { on } }),
  vendorStatus: () => call<DemoVendorStatus>(DEMO_API.vendorStatus),
};
