/** A sample customer the dev sign-in can sign in as: it becomes a user group at the vendor. */
export interface DevCustomer {
  /** The `?customer=` of the sign-in, and the user group id. */
  id: string;
  name: string;
  /** The session's `embed_properties`: what the dashboard filters on. */
  properties: Record<string, string | number | boolean>;
}

/** The customers the dev sign-in offers when `devCustomers` is not given. */
export const SAMPLE_CUSTOMERS: readonly DevCustomer[] = [
  { id: 'acme', name: 'Acme Corp', properties: { region: 'EMEA', plan: 'Enterprise' } },
  { id: 'globex', name: 'Globex', properties: { region: 'Americas', plan: 'Growth' } },
  { id: 'initech', name: 'Initech', properties: { region: 'APAC', plan: 'Starter' } },
];
