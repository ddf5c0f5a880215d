/** Fields of one structured log line. Values must be JSON-serialisable. */
export type LogFields = Record<string, unknown>;

/** The BFF's logger: one JSON object per line. */
export interface BffLogger {
  /**
   * Optional: the request lines of successful requests. Leave it out (or use a level above
   * `debug`) and the BFF does not even build them.
   */
  debug?(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface JsonLoggerOptions {
  /** Receives each finished line (no trailing newline). Default: stdout, batched per event-loop turn. */
  write?: (line: string) => void;
  /** Lines below this level are dropped. Default `info`. */
  level?: LogLevel;
  /** Known secrets: every occurrence in a line is replaced, whatever field carried it. */
  secrets?: readonly string[];
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

const LEVELS: Record<LogLevel, number> = { debug: 5, info: 10, warn: 20, error: 30, silent: 100 };

// Compact JWS (three base64url parts) or JWE (five, an embed token's), the first a JSON header ("eyJ…").
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*){2,4}/g;
const MIN_SECRET_LENGTH = 6;

/**
 * Removes secrets from a finished log line: every known secret, as it is and as JSON text
 * escapes it, and anything shaped like a JWT. It is a safety net under code that already never logs tokens, so a mistake upstream
 * (an error message quoting a header, say) still cannot leak them.
 *
 * @example
 * ```ts
 * redactLine('{"msg":"Token s3cr3t-api-token failed"}', ['s3cr3t-api-token']); // '{"msg":"Token [redacted] failed"}'
 * ```
 */
export function redactLine(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    // Inside JSON text a secret with a quote, backslash or control character appears escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join('[redacted]');
  }
  return out.includes('eyJ') ? out.replace(JWT_PATTERN, '[redacted-jwt]') : out;
}

const FLUSH_EVERY_MS = 100;
const FLUSH_AT_BYTES = 64 * 1024;

/**
 * Writes lines to stdout in batches (every 100 ms, or sooner past 64 KiB): a write per request
 * (stdout to a file or pipe is synchronous in Node) costs more than the request itself.
 * Pending lines are flushed on exit.
 */
function batchedStdout(): (line: string) => void {
  const proc = (globalThis as { process?: { stdout?: { write(text: string): unknown }; once?(event: 'exit', listener: () => void): unknown } }).process;
  if (proc?.stdout === undefined || proc.once === undefined) return (line) => console.log(line);
  const out = proc.stdout;
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  let registered = false;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    out.write(text);
  };
  return (line) => {
    if (!registered) {
      registered = true;
      proc.once!('exit', flush);
    }
    pending += `${line}\n`;
    if (pending.length >= FLUSH_AT_BYTES) flush();
    else if (timer === undefined) {
      timer = setTimeout(flush, FLUSH_EVERY_MS);
      // Logging alone must not keep a finished process alive; 'exit' flushes the rest.
      (timer as { unref?: () => void }).unref?.();
    }
  };
}

function redactValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redactLine(value, secrets);
  if (typeof value !== 'object' || value === null || depth > 5) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets, depth + 1));
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, secrets, depth + 1);
  return out;
}

/**
 * Wraps any logger (yours included) so the message and every string in its fields are
 * redacted before they reach it: known secrets and anything shaped like a JWT.
 *
 * @example
 * ```ts
 * const mine: BffLogger = { info: (msg, f) => pino.info(f, msg), warn: (msg, f) => pino.warn(f, msg), error: (msg, f) => pino.error(f, msg) };
 * const logger = withRedaction(mine, [apiToken]); // createBffApp({ logger: mine, secrets: [apiToken] }) does this for you
 * ```
 */
export function withRedaction(logger: BffLogger, secrets: readonly string[]): BffLogger {
  const known = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  const wrap = (write: (message: string, fields?: LogFields) => void) => (message: string, fields?: LogFields) =>
    write(redactLine(message, known), fields === undefined ? undefined : (redactValue(fields, known, 0) as LogFields));
  const wrapped: BffLogger = {
    info: wrap((m, f) => logger.info(m, f)),
    warn: wrap((m, f) => logger.warn(m, f)),
    error: wrap((m, f) => logger.error(m, f)),
  };
  if (logger.debug !== undefined) wrapped.debug = wrap((m, f) => logger.debug!(m, f));
  return wrapped;
}

/**
 * A logger that writes one JSON line per call with `time`, `level` and `msg`, redacted. Its
 * `debug` method exists only at level `debug`.
 *
 * @example
 * ```ts
 * const lines: string[] = [];
 * const logger = createJsonLogger({ write: (line) => lines.push(line), secrets: [apiToken] });
 * ```
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): BffLogger {
  const write = options.write ?? batchedStdout();
  const threshold = LEVELS[options.level ?? 'info'];
  // Secrets shorter than a few characters would redact ordinary words; config validation refuses them.
  const secrets = (options.secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH);
  const now = options.now ?? Date.now;
  // One ISO timestamp per millisecond: at thousands of lines a second most lines share one.
  let stampedAt = Number.NaN;
  let stamp = '';
  const emit = (level: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields) => {
    if (LEVELS[level] < threshold) return;
    const t = now();
    if (t !== stampedAt) {
      stampedAt = t;
      stamp = new Date(t).toISOString();
    }
    // The JSON text of {time, level, msg, ...fields}, without building that object.
    let rest: string;
    try {
      rest = fields === undefined ? '}' : JSON.stringify(fields);
    } catch {
      rest = '{"logError":"unserialisable fields"}';
    }
    const tail = rest === '}' || rest === '{}' ? '}' : `,${rest.slice(1)}`;
    write(redactLine(`{"time":"${stamp}","level":"${level}","msg":${JSON.stringify(message)}${tail}`, secrets));
  };
  const logger: BffLogger = {
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
  };
  if (threshold <= LEVELS.debug) logger.debug = (message, fields) => emit('debug', message, fields);
  return logger;
}

/** Describes an error for a log line: name, code, message, and the chain of causes (bounded). */
export function describeError(error: unknown, depth = 0): LogFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const described: LogFields = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') described.code = code;
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') described.status = status;
  if (error.cause !== undefined && depth < 3) described.cause = describeError(error.cause, depth + 1);
  return described;
}
