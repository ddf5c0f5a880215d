/**
 * HTTP events as Lambda receives them, shaped after AWS's published examples: a function URL
 * (payload 2.0: lower-case headers, cookies in their own array, `requestContext.http`), an HTTP
 * API (payload 2.0 with a route key and stage) and a REST API (payload 1.0: headers as the
 * client wrote them, multi-value headers, the `Cookie` header). Each sets `isBase64Encoded` as
 * the service does: API Gateway and function URLs base64 a body whose content type they do not
 * take for text, so a test can send the same request both ways.
 */
export interface HttpRequestShape {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  base64?: boolean;
}

const DOMAIN = 'a1b2c3d4e5f6g7h8i9j0.lambda-url.eu-west-1.on.aws';
const TIME = { time: '26/Nov/2026:21:03:58 +0000', timeEpoch: 1795813438390 };
const encodeBody = (shape: HttpRequestShape) =>
  shape.body === undefined ? undefined : shape.base64 ? Buffer.from(shape.body, 'utf8').toString('base64') : shape.body;
const lowerCase = (headers: Record<string, string> = {}) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

/** A function URL invocation (payload 2.0). */
export function functionUrlEvent(shape: HttpRequestShape, domainName = DOMAIN): Record<string, unknown> {
  const method = shape.method ?? 'POST';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: shape.path,
    rawQueryString: '',
    ...(shape.cookies && { cookies: shape.cookies }),
    headers: {
      'x-amzn-tls-cipher-suite': 'TLS_AES_128_GCM_SHA256',
      'x-amzn-tls-version': 'TLSv1.3',
      'x-amzn-trace-id': 'Root=1-6747a1be-0c5f1b7e3a9d2e4f6a8b0c1d',
      'x-forwarded-proto': 'https',
      host: domainName,
      'x-forwarded-port': '443',
      'x-forwarded-for': '203.0.113.7',
      accept: '*/*',
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      ...lowerCase(shape.headers),
    },
    requestContext: {
      accountId: 'anonymous',
      apiId: domainName.split('.')[0],
      domainName,
      domainPrefix: domainName.split('.')[0],
      http: { method, path: shape.path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'Mozilla/5.0' },
      requestId: 'c4a1f3e2-9b7d-4e6a-8f1c-2d3b4a5c6e7f',
      routeKey: '$default',
      stage: '$default',
      ...TIME,
    },
    ...(shape.body !== undefined && { body: encodeBody(shape) }),
    isBase64Encoded: shape.base64 === true,
  };
}

/** An API Gateway HTTP API invocation (payload 2.0, a `$default` route on a custom stage). */
export function httpApiEvent(shape: HttpRequestShape, domainName = 'embed.app.example'): Record<string, unknown> {
  const event = functionUrlEvent(shape, domainName);
  const context = event.requestContext as Record<string, unknown>;
  return {
    ...event,
    routeKey: `ANY /{proxy+}`,
    pathParameters: { proxy: shape.path.slice(1) },
    stageVariables: null,
    requestContext: { ...context, accountId: '123456789012', apiId: 'r3pmxmplak', domainPrefix: 'embed', routeKey: 'ANY /{proxy+}', stage: '$default' },
  };
}

/** An API Gateway REST API invocation (payload 1.0): headers keep the client's case. */
export function restApiEvent(shape: HttpRequestShape, domainName = 'r3pmxmplak.execute-api.eu-west-1.amazonaws.com'): Record<string, unknown> {
  const method = shape.method ?? 'POST';
  const headers: Record<string, string> = {
    Accept: '*/*',
    Host: domainName,
    'User-Agent': 'Mozilla/5.0',
    'X-Amzn-Trace-Id': 'Root=1-6747a1be-0c5f1b7e3a9d2e4f6a8b0c1d',
    'X-Forwarded-For': '203.0.113.7',
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
    ...(shape.cookies && { Cookie: shape.cookies.join('; ') }),
    ...shape.headers,
  };
  return {
    version: '1.0',
    resource: '/{proxy+}',
    path: shape.path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'r3pmxmplak',
      domainName,
      domainPrefix: 'r3pmxmplak',
      extendedRequestId: 'JJbxmHERiAMEXXA=',
      httpMethod: method,
      identity: { sourceIp: '203.0.113.7', userAgent: 'Mozilla/5.0' },
      path: `/Prod${shape.path}`,
      protocol: 'HTTP/1.1',
      requestId: 'c4a1f3e2-9b7d-4e6a-8f1c-2d3b4a5c6e7f',
      requestTime: TIME.time,
      requestTimeEpoch: TIME.timeEpoch,
      resourceId: 'tf2g1e',
      resourcePath: '/{proxy+}',
      stage: 'Prod',
    },
    pathParameters: { proxy: shape.path.slice(1) },
    stageVariables: null,
    body: encodeBody(shape) ?? null,
    isBase64Encoded: shape.base64 === true,
  };
}
