import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answerClientError } from './client-error.js';

/** A socket stand-in that records what is written and whether it was destroyed. */
function fakeSocket(bytesWritten = 0) {
  let written = '';
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString('utf8');
      done();
    },
  });
  Object.defineProperty(socket, 'bytesWritten', { value: bytesWritten });
  return { socket, written: () => written };
}

const error = (code: string) => Object.assign(new Error(code), { code });

describe('answerClientError', () => {
  it.each([
    ['HPE_INVALID_CONTENT_LENGTH', 'HTTP/1.1 400 Bad Request', 'bad_json'],
    ['HPE_HEADER_OVERFLOW', 'HTTP/1.1 431 Request Header Fields Too Large', 'payload_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'HTTP/1.1 408 Request Timeout', 'bad_json'],
  ])('answers %s with %s and a success: 0 body, then closes', async (code, statusLine, errorCode) => {
    const { socket, written } = fakeSocket();
    const finished = new Promise((resolve) => socket.on('finish', resolve));
    answerClientError(error(code), socket);
    await finished;
    const [head = '', body = ''] = written().split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe(statusLine);
    expect(head).toContain('Connection: close');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({ success: 0, error: { code: errorCode, message: expect.any(String) } });
  });

  it('only destroys a socket that was reset or already answered something', () => {
    for (const [socketBytes, code] of [
      [0, 'ECONNRESET'],
      [120, 'HPE_INVALID_METHOD'],
    ] as const) {
      const { socket, written } = fakeSocket(socketBytes);
      answerClientError(error(code), socket);
      expect(socket.destroyed).toBe(true);
      expect(written()).toBe('');
    }
  });
});
