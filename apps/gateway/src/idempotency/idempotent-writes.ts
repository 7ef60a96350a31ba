import { AppError, problem, PROBLEM_CONTENT_TYPE, toProblem, withDeadline } from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { IdempotencyScope, IdempotencyStore, StoredAnswer } from './idempotency.store';

/** A write running under its key: settle it with the answer, or let it go so that a retry runs again. */
export interface IdempotentWrite {
  succeeded(answer: StoredAnswer): Promise<void>;
  /**
   * A thrown error: a client error is the answer and is kept; a failure of ours (5xx) or a refusal
   * to try later (429) lets the key go, so that a retry runs again.
   */
  failed(error: unknown, where: { instance: string; requestId: string }): Promise<void>;
  /** An answer that cannot be kept (a streamed body): the key is let go. */
  abandon(): Promise<void>;
}

export type IdempotentStart = { replay: StoredAnswer } | { write: IdempotentWrite };

export interface IdempotentWrites {
  begin(scope: IdempotencyScope, fingerprint: Buffer): Promise<IdempotentStart>;
}

/** An answer a retry should get again; not a failure of ours or a "too many, try later". */
const isFinal = (status: number) => status < 500 && status !== 429;

/**
 * The binder's side of idempotency keys: a claim before the handler runs, the answer kept after it.
 * Keeping or letting go never fails the request: the answer is already decided, and a key left
 * claimed is freed when its lease lapses.
 */
export function idempotentWrites(store: IdempotencyStore, logger: Logger, deadlineMs: number): IdempotentWrites {
  // Bounded like every call on the request's path: a hung database answers 504 to the claim, and a
  // kept answer that cannot be written in time is logged while the answer goes out.
  const settle = (what: string, run: () => Promise<void>) =>
    withDeadline(run(), deadlineMs, 'The idempotency store').catch((error: unknown) =>
      logger.warn({ err: error }, `could not ${what} an idempotency key; it frees when its lease lapses`),
    );
  return {
    async begin(scope, fingerprint) {
      const claim = await withDeadline(store.claim(scope, fingerprint), deadlineMs, 'The idempotency store');
      switch (claim.outcome) {
        case 'replay':
          return { replay: claim.answer };
        case 'mismatch':
          throw problem('IDEMPOTENCY_KEY_REUSED', `Idempotency-Key ${scope.key} was already used for a different request to this operation.`);
        case 'in-flight':
          throw problem('IDEMPOTENCY_REQUEST_IN_PROGRESS', `A request with Idempotency-Key ${scope.key} is still running; retry once it has answered.`, {
            headers: { 'Retry-After': '1' },
          });
      }
      const release = () => settle('release', () => store.release(scope, fingerprint));
      return {
        write: {
          succeeded: (answer) => (!isFinal(answer.status) ? release() : settle('store the answer of', () => store.complete(scope, fingerprint, answer))),
          failed: (error, where) => {
            if (!(error instanceof AppError) || !isFinal(error.status)) return release();
            const body = Buffer.from(JSON.stringify(toProblem(error, where)));
            return settle('store the answer of', () =>
              store.complete(scope, fingerprint, { status: error.status, headers: { ...error.headers, 'Content-Type': PROBLEM_CONTENT_TYPE }, body }),
            );
          },
          abandon: release,
        },
      };
    },
  };
}
