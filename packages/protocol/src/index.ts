export { USER_API_PATH, VENDOR_AUTH_SCHEME, ENVIRONMENTS, MAX_USER_GROUP_TOKEN_CHARS, isUserGroupToken } from './vendor.js';
export type {
  Environment,
  DataSourceMapping,
  UserGroupProperties,
  UserGroupInput,
  RotateTokenInput,
  UserGroup,
  UserGroupWithEnvironment,
  GetOrCreateUserGroupResponse,
  UpdateUserGroupResponse,
  RotateUserGroupTokenResponse,
  VendorFailureResponse,
} from './vendor.js';

export { UPSTREAM_APIS, EXPLO_CUSTOMER_ROUTES, EXPLO_AUTH_HEADER, ExploFrameEvent, ExploHostEvent, EXPLO_IFRAME_QUERY } from './explo.js';
export type { UpstreamApiName, ExploCustomerInput, ExploCustomer, ExploGetOrCreateCustomerResponse, ExploCustomerResponse } from './explo.js';

export {
  EXPLO_EMBED_JWE,
  EXPLO_EMBED_KEY_BYTES,
  EXPLO_JWT_IFRAME_PATH,
  GENERATE_JWT_FIELDS,
  exploEmbedKey,
  exploEmbedIssuer,
  isExploEmbedKeyId,
  isCompactJwe,
  isDashboardId,
  isoDurationSeconds,
} from './explo-embed.js';
export type { ExploEmbedClaims, ExploGenerateJwtInput, ExploGenerateJwtResponse } from './explo-embed.js';

export { EmulatorErrorCode, EMULATOR_ADMIN_ROUTES, EMULATOR_LISTENING_PREFIX } from './emulator.js';
export type { EmulatorErrorBody, ExpireTokenRequest, EmulatorStats, FaultOperation, FaultSettings } from './emulator.js';

export {
  DEFAULT_BFF_BASE_PATH,
  BFF_ROUTES,
  BffErrorCode,
  BFF_ERROR_STATUS,
  BFF_LISTENING_PREFIX,
  isTokenResponse,
  isBffErrorBody,
  TOKEN_REQUEST_FIELDS,
  isChartId,
  isTokenRequest,
} from './bff.js';
export type { TokenResponse, TokenRequest, RotateTokenRequest, BffErrorBody, HealthResponse, ReadinessResponse } from './bff.js';

export { DashboardEvent, HostEvent, MIN_DASHBOARD_HEIGHT, MAX_DASHBOARD_HEIGHT, parseDashboardMessage, parseHostMessage, isVariableValue } from './messages.js';
export { isRecord } from './guards.js';
export type { VariableValue, DashboardVariables, DashboardMessageDetails, HostMessageDetails, DashboardMessage, HostMessage } from './messages.js';

export {
  TOKEN_REQUEST_TIMEOUT_MS,
  BFF_REQUEST_DEADLINE_MS,
  UPSTREAM_TIMEOUT_RETRY_AFTER_SECONDS,
  VENDOR_CALL_DEADLINE_MS,
  VENDOR_ATTEMPT_TIMEOUT_MS,
} from './deadlines.js';
export { parseRetryAfter, backoffDelay, withTimeout } from './retry.js';
export { readAtMost } from './body.js';
export { TIMINGS_LIMITS, TIMING_FIELDS, TIMING_KINDS, timingsReportProblem } from './timings.js';
export type { TimingsReport, TimingKind, TimingField } from './timings.js';
export { resolveSrc, exploSrc, canonicalLocale, isRefreshMinutes, REFRESH_MINUTES } from './frame-src.js';
export { VARIABLE_LIMITS, variablesProblem, copyVariables } from './variables.js';
export { parseCustomEvent, CUSTOM_EVENT_LIMITS, MAX_CUSTOM_EVENT_NAME_LENGTH } from './custom-events.js';
export type { JsonValue, DashboardCustomEventDetail } from './custom-events.js';
export type { VariableLimits } from './variables.js';
export type { SrcValues } from './frame-src.js';

export { SUPERSET_ROUTES, SUPERSET_CSRF_HEADER, SUPERSET_GUEST_TOKEN_HEADER, SUPERSET_GUEST_TOKEN, isSupersetEmbeddedUuid } from './superset/api.js';
export { SUPERSET_SESSION_COOKIE, SUPERSET_USER_TOKEN_SECONDS } from './superset/api.js';
export type { SupersetJwtErrorBody, SupersetMessageBody, SupersetErrorsBody } from './superset/api.js';
export type {
  SupersetLoginProvider,
  SupersetLoginRequest,
  SupersetLoginResponse,
  SupersetGuestUser,
  SupersetGuestResource,
  SupersetRlsRule,
  SupersetGuestTokenRequest,
  SupersetGuestTokenResponse,
  SupersetGuestTokenClaims,
  SupersetCsrfTokenResponse,
} from './superset/api.js';
export {
  SUPERSET_COMMS_TYPE,
  SUPERSET_PORT_TRANSFER,
  SUPERSET_FILTER_PARAMS,
  SwitchboardAction,
  SupersetFrameMethod,
  SupersetHostMethod,
  SupersetUiConfig,
  supersetHandshake,
} from './superset/switchboard.js';
export type {
  SupersetHandshake,
  SwitchboardGet,
  SwitchboardReply,
  SwitchboardError,
  SwitchboardEmit,
  SwitchboardMessage,
  SupersetGuestTokenArgs,
  SupersetScrollSize,
  SupersetUiConfigFlag,
} from './superset/switchboard.js';

export {
  DEFAULT_RENEWAL_MARGIN_MS,
  MAX_RENEWAL_MARGIN_SHARE,
  EXPIRED_RENEWAL_DELAY_MS,
  DEFAULT_ROTATION_SPACING_MS,
  MAX_ROTATION_SPACING_SHARE,
  REUSE_MIN_LEFT_SHARE,
  REUSE_MIN_LEFT_MS,
  renewalMarginMs,
  renewalDelayMs,
  rotationSpacingMs,
  reuseMinLeftMs,
  renewalsPerWindow,
} from './renewal.js';

export {
  METABASE_RESOURCE_KINDS,
  METABASE_EMBED_PATHS,
  METABASE_EMBED_API,
  METABASE_EMBED_JWT,
  MetabaseParameterKind,
  MetabaseEmbedError,
  isMetabaseSecret,
  isMetabaseResourceId,
  isMetabaseSlug,
} from './metabase/embed.js';
export type { MetabaseResourceKind, MetabaseResourceId, MetabaseParamScalar, MetabaseParamValue, MetabaseEmbedClaims } from './metabase/embed.js';
export {
  METABASE_THEMES,
  METABASE_DOWNLOAD_KINDS,
  METABASE_HASH_OPTIONS,
  METABASE_MAX_REFRESH_SECONDS,
  isMetabaseLocale,
  metabaseHash,
  parseMetabaseHash,
  metabaseFrameUrl,
} from './metabase/frame-url.js';
export type { MetabaseTheme, MetabaseHashOption, MetabaseHashOptions } from './metabase/frame-url.js';
export { METABASE_LOCATION_FIELDS, METABASE_MAX_FRAME_HEIGHT, MetabaseFrameMessageType, parseMetabaseFrameMessage } from './metabase/frame-messages.js';
export type { MetabaseFrameSpec, MetabaseFrameMessage } from './metabase/frame-messages.js';
