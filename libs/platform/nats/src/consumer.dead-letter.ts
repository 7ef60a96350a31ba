import type { StreamSpec } from './stream.declare';

/**
 * The stream that keeps dead letters of every consumer, one subject per consumer. Declare it
 * (through `naming(prefix).streamSpec`) wherever consumers run; dead letters wait here for a human
 * or a replay tool, so they are kept much longer than the work streams keep theirs.
 */
export const DEAD_LETTER_STREAM: StreamSpec = {
  name: 'DEAD_LETTERS',
  subjects: ['dlq.>'],
  maxAgeMs: 14 * 24 * 60 * 60_000,
};

/** Conventional dead-letter subject for a consumer (unprefixed, like the rest of a spec). */
export function deadLetterSubjectFor(stream: string, durable: string): string {
  return `dlq.${stream}.${durable}`;
}

/** Headers a dead letter carries so it can be understood and replayed without the original. */
export const DeadLetterHeader = {
  OriginalSubject: 'Dlq-Original-Subject',
  OriginalMsgId: 'Dlq-Original-Msg-Id',
  Error: 'Dlq-Error',
  Stream: 'Dlq-Stream',
  StreamSequence: 'Dlq-Stream-Sequence',
  Consumer: 'Dlq-Consumer',
  DeliveryCount: 'Dlq-Delivery-Count',
} as const;

export interface DeadLetterFacts {
  subject: string;
  msgId: string | undefined;
  error: string;
  stream: string;
  streamSequence: number;
  consumer: string;
  deliveryCount: number;
  /** Headers of the original message; carried over except the NATS-reserved ones. */
  originalHeaders: Readonly<Record<string, string>>;
}

const MAX_ERROR_HEADER_LENGTH = 1024;

export function deadLetterHeaders(facts: DeadLetterFacts): Record<string, string> {
  const carried = Object.fromEntries(Object.entries(facts.originalHeaders).filter(([key]) => !key.toLowerCase().startsWith('nats-')));
  return {
    ...carried,
    [DeadLetterHeader.OriginalSubject]: facts.subject,
    [DeadLetterHeader.OriginalMsgId]: facts.msgId ?? '',
    [DeadLetterHeader.Error]: toHeaderValue(facts.error, MAX_ERROR_HEADER_LENGTH),
    [DeadLetterHeader.Stream]: facts.stream,
    [DeadLetterHeader.StreamSequence]: String(facts.streamSequence),
    [DeadLetterHeader.Consumer]: facts.consumer,
    [DeadLetterHeader.DeliveryCount]: String(facts.deliveryCount),
  };
}

/**
 * The dead letter's own Nats-Msg-Id. The stream sequence identifies the original message for good,
 * so re-dead-lettering after a crash between publish and term is deduplicated.
 */
export function deadLetterMsgId(stream: string, streamSequence: number): string {
  return `dlq:${stream}:${streamSequence}`;
}

/** Header values are one line; an error message with a stack or CRLF would break the protocol. */
export function toHeaderValue(text: string, maxLength: number): string {
  const oneLine = text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim();
  return oneLine.length > maxLength ? `${oneLine.slice(0, maxLength - 3)}...` : oneLine;
}
