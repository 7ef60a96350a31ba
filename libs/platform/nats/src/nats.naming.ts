import type { ConsumerSpec } from './consumer.declare';
import type { StreamSpec } from './stream.declare';

/** Same rule as NATS_PREFIX in @platform/config: safe inside both stream names and subject tokens. */
const PREFIX_PATTERN = /^[A-Za-z0-9_]*$/;

/**
 * Applies NATS_PREFIX to everything that lives in the server's global namespace (stream names and
 * subjects), so parallel test runs and side-by-side environments on one server never collide.
 * Specs are declared in code without the prefix; a process applies its prefix once at startup.
 * Durable consumer names are not prefixed: they are already scoped by their (prefixed) stream.
 */
export interface Naming {
  readonly prefix: string;
  stream(name: string): string;
  subject(subject: string): string;
  streamSpec(spec: StreamSpec): StreamSpec;
  consumerSpec(spec: ConsumerSpec): ConsumerSpec;
}

export function naming(prefix = ''): Naming {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new Error(`Invalid NATS prefix ${JSON.stringify(prefix)}: letters, digits and _ only`);
  }
  const stream = (name: string) => `${prefix}${name}`;
  const subject = (value: string) => `${prefix}${value}`;
  return {
    prefix,
    stream,
    subject,
    streamSpec: (spec) => ({ ...spec, name: stream(spec.name), subjects: spec.subjects.map(subject) }),
    consumerSpec: (spec) => ({
      ...spec,
      stream: stream(spec.stream),
      filterSubject: subject(spec.filterSubject),
      deadLetterSubject: subject(spec.deadLetterSubject),
    }),
  };
}
