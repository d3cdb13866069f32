// Calls to the bridge's HTTP API with the viewer's bearer token; errors keep the bridge's `{ error: { code, message }
// }`.
import type { RunStatus } from '../../common/run-status';
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A run as `GET /runs` and `GET /runs/:id` answer it. */
export interface RunSummary {
  runId: string;
  agent: string;
  status: RunStatus;
  startTime?: string;
  closeTime?: string;
  /** A retry: the run it continues; a fork: the run it was forked from, at `step`. */
  retriedFrom?: string;
  forkedFrom?: string;
  step?: number;
  /** GET /runs/:id: the retries and forks made from the run. */
  rescues?: { runId: string; retriedFrom?: string; forkedFrom?: string; step?: number }[];
}

export interface AgentSummary {
  name: string;
  kind: string;
  description?: string;
}

export class Api {
  constructor(
    private readonly token: string,
    private readonly onUnauthorized: (message: string) => void,
  ) {}

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
      const failure = new ApiError(
        res.status,
        error?.code ?? 'http_error',
        error?.message ?? `${method} ${path}: HTTP ${res.status}`,
      );
      if (res.status === 401) this.onUnauthorized(failure.message);
      throw failure;
    }
    return json as T;
  }
}

/** A run id as one path segment (nested run ids hold slashes). */
export const runPath = (runId: string) => `/runs/${encodeURIComponent(runId)}`;
