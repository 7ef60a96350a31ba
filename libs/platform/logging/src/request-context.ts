import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request id of the work in progress, carried by AsyncLocalStorage from where a request enters
 * the process (the gateway's HTTP request, a gRPC call's `x-request-id` metadata, a NATS message's
 * header) through everything it awaits. Every log line written meanwhile carries it (see
 * createLogger), and every gRPC call and NATS message sent meanwhile passes it on.
 */
const requestIds = new AsyncLocalStorage<string>();

/** The header (HTTP and gRPC metadata, NATS) that carries a request id from hop to hop. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What a request id taken from another hop may look like: the gateway mints or accepts no other. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A request id read from a hop's metadata or headers, or undefined when it is missing or malformed. */
export function acceptedRequestId(value: string | undefined): string | undefined {
  return value !== undefined && SAFE_REQUEST_ID.test(value) ? value : undefined;
}

/** Runs `work` with `requestId` as the current request id; undefined runs it outside any request. */
export function withRequestId<T>(requestId: string | undefined, work: () => T): T {
  return requestId ? requestIds.run(requestId, work) : work();
}

export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}
