// The bridge's request logs without secrets: a URL's `access_token`/`token` parameters (a browser's stream token),
// bearer tokens and `#token=` links are replaced by `[redacted]` wherever they would be written (request, error).
import type { FastifyServerOptions } from 'fastify';

/** Where request logs go instead of stdout (a test's capture, a file stream): anything with `write(line)`. */
export interface LogDestination {
  write(line: string): void;
}

const REDACTED = '[redacted]';
const TOKEN_PARAM = /([?&#](?:access_token|token)=)[^&\s#"']*/gi;
const BEARER = /(bearer\s+)[^\s"',]+/gi;
/** A callback URL's token is its credential (POST /callbacks/<token>). */
const CALLBACK_PATH = /(\/callbacks\/)[^/?#\s"']+/gi;

/** `text` with every token in it redacted. */
export function redactTokens(text: string): string {
  return text
    .replace(TOKEN_PARAM, `$1${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(CALLBACK_PATH, `$1${REDACTED}`);
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

interface LoggedError {
  type?: string;
  message?: string;
  stack?: string;
  code?: string;
  statusCode?: number;
}

/** Fastify's logger options for the bridge: its usual fields, tokens redacted, to stdout or `destination`. */
export function redactingLogger(destination?: LogDestination): NonNullable<FastifyServerOptions['logger']> {
  return {
    ...(destination ? { stream: destination } : {}),
    // Headers are not logged by these serializers; should a handler log one, its token is blanked all the same.
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization'], censor: REDACTED },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: redactTokens(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
      err: (err: LoggedError) => ({
        type: err.type ?? (err as Error).name,
        message: redactTokens(err.message ?? ''),
        stack: redactTokens(err.stack ?? ''),
        ...(err.code ? { code: err.code } : {}),
        ...(err.statusCode ? { statusCode: err.statusCode } : {}),
      }),
    },
  };
}
