import { connect } from 'nats';

/** Deletes every JetStream stream a test run created under its prefix. */
export async function deletePrefixedStreams(prefix: string, url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'): Promise<number> {
  if (!/^t[0-9a-f]{8}_[a-z0-9]*_$/.test(prefix)) throw new Error(`Refusing to delete streams for unexpected prefix ${prefix}`);
  const nc = await connect({ servers: url, name: 'test-cleanup' });
  try {
    const jsm = await nc.jetstreamManager();
    let deleted = 0;
    for await (const name of jsm.streams.names()) {
      // Key-value buckets are streams named KV_<bucket>, and a bucket's name carries the prefix.
      if (name.startsWith(prefix) || name.startsWith(`KV_${prefix}`)) {
        await jsm.streams.delete(name);
        deleted++;
      }
    }
    return deleted;
  } finally {
    await nc.close();
  }
}
