import { templatesV1 as v1 } from '@contracts/proto';
import type { GrpcServiceSpec } from '@platform/service';
import { templatesConfigSchema, type TemplatesConfig } from './templates.config';
import { templatesGrpc } from './templates.grpc';
import { createTemplatesServices } from './templates.services';
import { TEMPLATES_MIGRATIONS } from './migrations';

/** What is particular to templates; @platform/service runs it like every other service. */
export const templatesService: GrpcServiceSpec<TemplatesConfig, v1.TemplatesServiceServer> = {
  name: 'templates',
  configSchema: templatesConfigSchema,
  database: { base: 'templates', migrations: TEMPLATES_MIGRATIONS },
  // The System catalog ships with the code; every start brings the stored one up to date.
  seed: ({ db }) => createTemplatesServices({ db }).templates.seedCatalog(),
  definition: v1.TemplatesServiceService,
  implementation: ({ logger, guard, db }) => templatesGrpc({ logger, guard, ...createTemplatesServices({ db }) }),
};
