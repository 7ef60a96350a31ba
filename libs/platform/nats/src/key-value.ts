import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KV, KvOptions, NatsConnection } from 'nats';
import type { Naming } from './nats.naming';

/**
 * A JetStream key-value bucket under NATS_PREFIX (bucket names share the stream namespace: the bucket
 * `b` is the stream `KV_<prefix>b`). Opening creates it when missing with these options and binds to it
 * as it is otherwise, so a writer and its readers may open it in any order.
 */
export async function openKeyValue(nats: NatsConnection, names: Naming, bucket: string, options: Partial<KvOptions> = {}): Promise<KV> {
  return nats.jetstream().views.kv(names.stream(bucket), { history: 1, ...options });
}

/** Part size of a large value: well under NATS's default 1 MiB message limit. */
export const KV_PART_BYTES = 512 * 1024;
const GZIP_MAGIC = [0x1f, 0x8b];

interface PartsManifest {
  generation: string;
  parts: number;
}

const partKey = (key: string, generation: string, index: number) => `${key}.part.${generation}.${index}`;
const isGzip = (bytes: Uint8Array) => bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];

function manifestOf(bytes: Uint8Array | undefined): PartsManifest | undefined {
  if (!bytes || bytes.length === 0 || isGzip(bytes)) return undefined;
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as PartsManifest;
}

/**
 * Stores a value of any size under `key`, gzipped. One that still exceeds `partBytes` is written as parts
 * under `<key>.part.<generation>.<n>` first and `key` then names them, so a watcher of `key` sees the new
 * value only once all of it is stored; the previous generation's parts are removed afterwards.
 */
export async function putLargeValue(kv: KV, key: string, value: string, partBytes = KV_PART_BYTES): Promise<void> {
  const zipped = gzipSync(value);
  const previous = manifestOf((await kv.get(key))?.value);
  if (zipped.length <= partBytes) {
    await kv.put(key, zipped);
  } else {
    const generation = randomBytes(6).toString('hex');
    const parts = Math.ceil(zipped.length / partBytes);
    for (let i = 0; i < parts; i++) await kv.put(partKey(key, generation, i), zipped.subarray(i * partBytes, (i + 1) * partBytes));
    await kv.put(key, JSON.stringify({ generation, parts } satisfies PartsManifest));
  }
  if (previous) for (let i = 0; i < previous.parts; i++) await kv.purge(partKey(key, previous.generation, i));
}

/** Removes a value stored by putLargeValue, parts and all. */
export async function deleteLargeValue(kv: KV, key: string): Promise<void> {
  const previous = manifestOf((await kv.get(key))?.value);
  await kv.delete(key);
  if (previous) for (let i = 0; i < previous.parts; i++) await kv.purge(partKey(key, previous.generation, i));
}

/** The value a putLargeValue head entry stands for; undefined when a part is gone (a newer value replaced it). */
export async function readLargeValue(kv: KV, key: string, head: Uint8Array): Promise<string | undefined> {
  const manifest = manifestOf(head);
  if (!manifest) return gunzipSync(head).toString('utf8');
  const parts: Uint8Array[] = [];
  for (let i = 0; i < manifest.parts; i++) {
    const part = await kv.get(partKey(key, manifest.generation, i));
    if (!part || part.operation !== 'PUT') return undefined;
    parts.push(part.value);
  }
  return gunzipSync(Buffer.concat(parts)).toString('utf8');
}
