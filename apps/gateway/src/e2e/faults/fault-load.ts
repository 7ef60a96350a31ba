import type { Http } from '../e2e-system';

/** One answer the load received, as a fault spec reasons about it. */
export interface LoadAnswer {
  worker: number;
  /** The request's own label (e.g. the name a write sent), so acknowledged writes can be read back. */
  label: string;
  /** When the request was sent and how long it took, in ms since the load started. */
  sentAt: number;
  ms: number;
  /** 0 when no answer came within the client's own timeout (a hung request). */
  status: number;
  code?: string;
  retryAfter: string | null;
  contentType: string | null;
  body: Record<string, unknown> | undefined;
  /** Set when the answer did not conform to the OpenAPI document (see httpClient) or the request failed. */
  failure?: string;
}

export interface LoadRequest {
  label: string;
  method: string;
  path: string;
  json?: unknown;
}

/** Far above every budget of the stack: a request still open then is reported as hung (status 0). */
const CLIENT_TIMEOUT_MS = 20_000;

/**
 * Concurrent clients, each sending its next request as soon as the last one answered, until stopped.
 * Bounded: it stops by itself after `maxMs` whatever the spec does.
 */
export function startLoad(options: { http: Http; apiKey: string; workers: number; next: (worker: number, n: number) => LoadRequest; maxMs?: number }) {
  const { http, apiKey, workers, next, maxMs = 120_000 } = options;
  const answers: LoadAnswer[] = [];
  const startedAt = Date.now();
  let stopping = false;
  const runWorker = async (worker: number) => {
    for (let n = 0; !stopping && Date.now() - startedAt < maxMs; n++) {
      const request = next(worker, n);
      const sentAt = Date.now() - startedAt;
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<'hung'>((done) => {
        timer = setTimeout(() => done('hung'), CLIENT_TIMEOUT_MS);
      });
      const base = { worker, label: request.label, sentAt };
      try {
        const result = await Promise.race([http(request.method, request.path, { key: apiKey, json: request.json }), hung]);
        const ms = Date.now() - startedAt - sentAt;
        if (result === 'hung') answers.push({ ...base, ms, status: 0, retryAfter: null, contentType: null, body: undefined, failure: 'no answer' });
        else
          answers.push({
            ...base,
            ms,
            status: result.status,
            code: result.body?.code,
            retryAfter: result.headers.get('retry-after'),
            contentType: result.headers.get('content-type'),
            body: result.body as Record<string, unknown> | undefined,
          });
      } catch (error) {
        answers.push({
          ...base,
          ms: Date.now() - startedAt - sentAt,
          status: -1,
          retryAfter: null,
          contentType: null,
          body: undefined,
          failure: error instanceof Error ? error.message : String(error),
        });
      } finally {
        clearTimeout(timer);
      }
    }
  };
  const running = Promise.all(Array.from({ length: workers }, (_, worker) => runWorker(worker)));
  return {
    /** Milliseconds since the load started, on the clock the answers use. */
    now: () => Date.now() - startedAt,
    answers,
    /** Resolves once `predicate` holds for an answer sent at or after `since`; rejects after `timeoutMs`. */
    async waitFor(predicate: (answer: LoadAnswer) => boolean, since: number, timeoutMs = 30_000): Promise<LoadAnswer> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = answers.find((answer) => answer.sentAt >= since && predicate(answer));
        if (found) return found;
        await new Promise((done) => setTimeout(done, 50));
      }
      throw new Error(`no answer matched within ${timeoutMs} ms`);
    },
    async stop(): Promise<LoadAnswer[]> {
      stopping = true;
      await running;
      return answers;
    },
  };
}

/** Counts answers by `status code` (e.g. `201`, `503 SERVICE_UNAVAILABLE`), for the summary a fault spec prints. */
export function tally(answers: LoadAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.code ? `${answer.status} ${answer.code}` : String(answer.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
