/**
 * The one network seam of the client. Tests inject their own; the default on Node speaks
 * node:http(s) because the vendor's GET carries a JSON body, which `fetch` refuses to send; on
 * runtimes without Node's modules (Workers, edge) it is `fetch` (transport/fetch.ts).
 */

/** One HTTP exchange as the client asks for it. */
export interface TransportRequest {
  method: 'GET' | 'PUT' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** The JSON body, sent for every method (the GET included). */
  body: string;
  /** Aborts the exchange: caller abort, per-attempt timeout or overall deadline. */
  signal: AbortSignal;
}

/** A whole response. */
export interface TransportResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one request and resolves with the whole response, whatever its status. Rejects on
 * network failure or abort; it may reject with a `UserGroupApiError` to choose the code itself.
 */
export type Transport = ((request: TransportRequest) => Promise<TransportResponse>) & {
  /**
   * `false` for a transport that cannot send a GET with a body (`fetch`): `UserGroupClient`
   * then refuses an API whose get-or-create needs one. Unset means it can.
   */
  readonly getWithBody?: boolean;
};
