import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from 'nats';
import { hasJsErrorCode, JsErrorCode } from './nats.api-errors';

/**
 * A stream as the code that owns it declares it. Names and subjects are given without NATS_PREFIX;
 * apply `naming(prefix).streamSpec(spec)` before ensuring it.
 */
export interface StreamSpec {
  name: string;
  subjects: string[];
  /** Messages older than this are discarded; omitted keeps them until other limits apply. */
  maxAgeMs?: number;
  /**
   * How long JetStream remembers a Nats-Msg-Id to drop a republished duplicate. It must exceed the
   * longest gap between a publish and its retry (outbox relay backoff, consumer redelivery).
   */
  duplicateWindowMs?: number;
}

export const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60_000;

/**
 * Creates the stream or brings an existing one to the spec; safe to call on every start and from
 * several processes at once. Only the fields the spec controls are changed, so settings an operator
 * tuned by hand (replicas, limits) survive a deploy.
 */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<StreamInfo> {
  if (spec.maxAgeMs !== undefined && spec.maxAgeMs < (spec.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS)) {
    throw new Error(`Stream ${spec.name}: duplicateWindowMs must not exceed maxAgeMs`);
  }
  const wanted: ManagedStreamFields = {
    subjects: [...spec.subjects],
    max_age: nanos(spec.maxAgeMs ?? 0),
    duplicate_window: nanos(spec.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
  };

  const existing = await streamInfoOrUndefined(jsm, spec.name);
  if (!existing) {
    try {
      return await jsm.streams.add({
        name: spec.name,
        ...wanted,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old,
      });
    } catch (err) {
      // Another process created it between our info and add: bring that one to the spec instead.
      if (!hasJsErrorCode(err, JsErrorCode.StreamNameInUse)) throw err;
      const created = await streamInfoOrUndefined(jsm, spec.name);
      if (!created) throw err;
      return updateIfChanged(jsm, created, spec.name, wanted);
    }
  }
  return updateIfChanged(jsm, existing, spec.name, wanted);
}

type ManagedStreamFields = Pick<StreamConfig, 'subjects' | 'max_age' | 'duplicate_window'>;

async function updateIfChanged(jsm: JetStreamManager, existing: StreamInfo, name: string, wanted: ManagedStreamFields): Promise<StreamInfo> {
  const current = existing.config;
  const unchanged =
    sameSet(current.subjects ?? [], wanted.subjects) && current.max_age === wanted.max_age && current.duplicate_window === wanted.duplicate_window;
  if (unchanged) return existing;
  return jsm.streams.update(name, wanted);
}

async function streamInfoOrUndefined(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (hasJsErrorCode(err, JsErrorCode.StreamNotFound)) return undefined;
    throw err;
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}
