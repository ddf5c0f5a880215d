/**
 * The vendor's (Explo's) current, documented shapes: its Customer API and its iframe embed.
 * Every name here is taken from the vendor's public docs; README.md in this package lists the
 * page for each and says what we assumed where the docs are silent.
 */

/** The upstream API profiles a client can speak. */
export const UPSTREAM_APIS = ['user-group-service', 'explo-customer'] as const;
export type UpstreamApiName = (typeof UPSTREAM_APIS)[number];

/**
 * Customer API routes, relative to the vendor base URL. All are POST with a JSON body; the
 * trailing slash is required (the vendor answers "Method not allowed" without it).
 */
export const EXPLO_CUSTOMER_ROUTES = {
  getOrCreate: '/api/create_customer/',
  update: '/api/update_customer/',
  refreshToken: '/api/refresh_customer_token/',
  /** An embed token for a customer and dashboard (explo-embed.ts). */
  generateJwt: '/api/generate_jwt/',
} as const;

/** The Customer API's auth header: `Explo-Authorization: Token <API_TOKEN>`. */
export const EXPLO_AUTH_HEADER = 'Explo-Authorization';

/**
 * Body of create_customer (get or create) and update_customer: the fields we send. `mapping` only
 * when the integrator manages it: update_customer changes only the fields given.
 */
export interface ExploCustomerInput {
  provided_id: string;
  name: string;
  mapping?: Record<string, string>;
  properties: Record<string, unknown>;
}

/** `customer` in every Customer API answer: the fields we read (others are ignored). */
export interface ExploCustomer {
  token: string;
  name: string;
  provided_id: string;
  properties?: Record<string, unknown> | null;
  /** The customer's schema -> data source mapping, as set by the API or in the vendor's UI. */
  parent_schema_datasource_mapping?: Record<string, string>;
}

/** Answer of create_customer. */
export interface ExploGetOrCreateCustomerResponse {
  success: 1;
  new_customer: boolean;
  customer: ExploCustomer;
}

/** Answer of update_customer and refresh_customer_token. */
export interface ExploCustomerResponse {
  success: 1;
  customer: ExploCustomer;
}

/** Events the vendor's dashboard frame posts to its host page, as `{ event, detail }`. */
export const ExploFrameEvent = {
  readyToLoad: 'dashboardReadyToLoad',
  loaded: 'dashboardLoaded',
  updated: 'dashboardUpdated',
  variableUpdated: 'sendVariableUpdatedEvent',
  jwtExpired: 'customerJwtExpired',
} as const;
export type ExploFrameEvent = (typeof ExploFrameEvent)[keyof typeof ExploFrameEvent];

/** Events the host page posts to the vendor's dashboard frame, as `{ event, detail }`. */
export const ExploHostEvent = {
  updateVariable: 'updateExploDashboardVariable',
  updateVariables: 'updateExploDashboardVariables',
  updateJwt: 'updateCustomerJwt',
} as const;
export type ExploHostEvent = (typeof ExploHostEvent)[keyof typeof ExploHostEvent];

/** Query parameters of the iframe URL besides variables. */
export const EXPLO_IFRAME_QUERY = { refreshMinutes: 'refresh-minutes', localeCode: 'locale_code' } as const;
