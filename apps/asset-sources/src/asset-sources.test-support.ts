import { createLogger } from '@platform/logging';
import type { ServiceDatabase } from '@platform/mysql';
import { naming } from '@platform/nats';
import { createSecretBox, developmentKey } from '@platform/secrets';
import { actingAs, createEventOutbox, TEST_PRINCIPAL } from '@platform/service';
import { openTestSchema, rejectionOf } from '@platform/testing';
import { createAssetSourcesServices, type AssetSourcesServices } from './asset-sources.services';
import { ASSET_SOURCES_MIGRATIONS } from './migrations';

export interface AssetSourcesTestBed extends AssetSourcesServices {
  prefix: string;
  db: ServiceDatabase;
  close(): Promise<void>;
}

/**
 * The services of asset-sources on a schema of their own (migrated like the real one), without gRPC
 * or NATS: specs of the rules call the services directly. `allowlist` lets remote sources reach a
 * local test server; `now` moves the clock the cache and the schedule read.
 */
export async function openAssetSourcesTestBed(
  tag: string,
  options: { allowlist?: string; now?: () => Date; feedRunCap?: number } = {},
): Promise<AssetSourcesTestBed> {
  const { prefix, db, close } = await openTestSchema({ tag, base: 'asset_sources', migrations: ASSET_SOURCES_MIGRATIONS });
  // Called as a key of the test org would call them, so their writes enter the audit trail.
  const services = actingAs(
    createAssetSourcesServices({
      db,
      logger: createLogger({ service: 'asset-sources-test', level: 'silent' }),
      remote: { allowlist: options.allowlist ?? '', timeoutMs: 2_000, maxBytes: 1024 * 1024 },
      // Events go to the schema's outbox table, as in the service; nothing relays them here.
      events: createEventOutbox(naming(prefix)),
      box: createSecretBox(developmentKey('asset-sources-test')),
      now: options.now,
      feedRunCap: options.feedRunCap,
    }),
    TEST_PRINCIPAL,
  );
  return { ...services, prefix, db, close };
}

export { rejectionOf };
