import type { Duplex } from 'node:stream';
import { EmulatorErrorCode, type EmulatorErrorBody } from '@embedded-dashboard/protocol';

const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** Status, code and message for a request Node's HTTP parser refused before the app saw it. */
function describe(error: NodeJS.ErrnoException): [number, EmulatorErrorCode, string] {
  if (error.code === 'HPE_HEADER_OVERFLOW') return [431, EmulatorErrorCode.payloadTooLarge, 'request headers are too large'];
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, EmulatorErrorCode.badJson, 'request was not fully received in time'];
  return [400, EmulatorErrorCode.badJson, 'malformed HTTP request (request line, headers or framing)'];
}

/**
 * The server's `clientError` listener. Node answers a request its parser refuses (a bad or
 * conflicting Content-Length, an oversized header block, a broken request line) with a bare
 * status and no body; this sends the emulator's `{ success: 0, error }` instead, so every failure
 * has the documented shape. Like Node's own handler it only writes on a socket that has not
 * answered anything yet, and always closes it.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable || ('bytesWritten' in socket && socket.bytesWritten !== 0)) {
    socket.destroy();
    return;
  }
  const [status, code, message] = describe(error);
  const body: EmulatorErrorBody = { success: 0, error: { code, message } };
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`,
  );
}
