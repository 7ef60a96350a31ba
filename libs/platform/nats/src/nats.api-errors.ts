import { NatsError } from 'nats';

/** JetStream API error codes we branch on (see nats-server's errors.json). */
export const JsErrorCode = {
  ConsumerNotFound: 10014,
  StreamNameInUse: 10058,
  StreamNotFound: 10059,
} as const;

export function hasJsErrorCode(err: unknown, errCode: number): boolean {
  return err instanceof NatsError && err.api_error?.err_code === errCode;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
