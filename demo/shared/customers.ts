/**
 * The demo's sample customers. Each one becomes a user group at the vendor; its properties
 * travel in the session JWT and the dashboards show them as variables. Shared by the server
 * (sign-in) and the sign-in page (the cards), so the two cannot disagree.
 */
export interface DemoCustomer {
  /** Stable id: the `?customer=` of `/login` and the user group id at the vendor. */
  id: string;
  name: string;
  /** The person the demo signs in as. */
  user: { name: string; email: string };
  properties: Record<string, string | number>;
}

export const DEMO_CUSTOMERS: readonly DemoCustomer[] = [
  {
    id: 'acme',
    name: 'Acme Corp',
    user: { name: 'Wile E. Coyote', email: 'wile@acme.example' },
    properties: { region: 'EMEA', plan: 'Enterprise', seats: 250, industry: 'Manufacturing' },
  },
  {
    id: 'globex',
    name: 'Globex',
    user: { name: 'Hank Scorpio', email: 'hank@globex.example' },
    properties: { region: 'Americas', plan: 'Growth', seats: 40, industry: 'Energy' },
  },
  {
    id: 'initech',
    name: 'Initech',
    user: { name: 'Peter Gibbons', email: 'peter@initech.example' },
    properties: { region: 'APAC', plan: 'Starter', seats: 12, industry: 'Software' },
  },
];

/** Looks a customer up by id; `undefined` for anything else (including `__proto__`). */
export function findCustomer(id: unknown): DemoCustomer | undefined {
  return typeof id === 'string' ? DEMO_CUSTOMERS.find((customer) => customer.id === id) : undefined;
}
