import { CACHED_VIEWS, EVERY_TENANT } from '@contracts/domain';
import { templatesV1 as v1 } from '@contracts/proto';
import { objectStoreFromConfig } from '@platform/s3';
import { naming } from '@platform/nats';
import { createEventOutbox, type GrpcServiceSpec } from '@platform/service';
import { templatesConfigSchema, type TemplatesConfig } from './templates.config';
import { templatesGrpc } from './templates.grpc';
import { createTemplatesServices } from './templates.services';
import { TEMPLATES_MIGRATIONS } from './migrations';

/** What is particular to templates; @platform/service runs it like every other service. */
export const templatesService: GrpcServiceSpec<TemplatesConfig, v1.TemplatesServiceServer> = {
  name: 'templates',
  configSchema: templatesConfigSchema,
  database: { base: 'templates', migrations: TEMPLATES_MIGRATIONS },
  // The System catalog ships with the code; every start brings the stored one up to date, then draws
  // any thumbnail the bucket lacks. A store that is down does not stop the start: search still
  // answers, and the missing thumbnails are drawn at the next start.
  seed: async ({ config, db, logger }) => {
    // The seed writes no account's pages: the start announces the whole view once NATS is up (below).
    // The seed changes no account's templates, so it records nothing in the audit trail either.
    const { templates } = createTemplatesServices({
      db,
      store: objectStoreFromConfig(config),
      announceViewChange: async () => true,
      events: createEventOutbox(naming(config.NATS_PREFIX)),
    });
    await templates.seedCatalog();
    const keyed = await templates.assignThumbnailKeys();
    try {
      const drawn = await templates.drawMissingThumbnails();
      if (keyed + drawn > 0) logger.info({ keyed, drawn }, 'template thumbnails restored');
    } catch (error) {
      logger.warn({ err: error, endpoint: config.S3_ENDPOINT }, 'object store unreachable at start; thumbnails it lacks are drawn at the next start');
    }
  },
  definition: v1.TemplatesServiceService,
  implementation: ({ config, logger, guard, db, events, announceViewChange, runInBackground }) => {
    // The seed may have brought a new System catalog, which every account's search shows: the gateways
    // drop every cached search page before this start takes calls.
    runInBackground('retail-templates cache notice', async () => {
      await announceViewChange({ view: CACHED_VIEWS.retailTemplates, tenant: EVERY_TENANT });
      return { stop: async () => undefined };
    });
    return templatesGrpc({ logger, guard, ...createTemplatesServices({ db, store: objectStoreFromConfig(config), announceViewChange, events }) });
  },
};
