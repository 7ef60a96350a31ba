import { acceptedRequestId, currentRequestId, REQUEST_ID_HEADER } from '@platform/logging';
import { extractTraceContext, injectTraceContext, type Context } from '@platform/telemetry';

/** The request id and trace context of the work in progress, as NATS headers; empty outside any. */
export function currentHopHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const requestId = currentRequestId();
  if (requestId) headers[REQUEST_ID_HEADER] = requestId;
  injectTraceContext((key, value) => {
    headers[key] = value;
  });
  return headers;
}

/** The same, serialized for an outbox row; null when there is nothing to carry. */
export function hopHeaders(): string | null {
  const headers = currentHopHeaders();
  return Object.keys(headers).length > 0 ? JSON.stringify(headers) : null;
}

export interface HopContext {
  requestId: string | undefined;
  /** The publisher's span, as the parent of the consumer's; undefined with tracing off. */
  parent: Context | undefined;
}

/** What a consumed message's headers say of the work that published it. */
export function hopContext(headers: Readonly<Record<string, string>>): HopContext {
  const lookup = (key: string) => headers[key] ?? Object.entries(headers).find(([name]) => name.toLowerCase() === key)?.[1];
  return { requestId: acceptedRequestId(lookup(REQUEST_ID_HEADER)), parent: extractTraceContext(lookup) };
}
