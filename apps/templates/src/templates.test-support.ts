import type { ServiceDatabase } from '@platform/mysql';
import { openTestSchema, rejectionOf } from '@platform/testing';
import { createTemplatesServices, type TemplatesServices } from './templates.services';
import { TEMPLATES_MIGRATIONS } from './migrations';

export interface TemplatesTestBed extends TemplatesServices {
  prefix: string;
  db: ServiceDatabase;
  close(): Promise<void>;
}

/**
 * The services of templates on a schema of their own (migrated like the real one, catalog seeded),
 * without gRPC or NATS: specs of the rules call the services directly.
 */
export async function openTemplatesTestBed(tag: string): Promise<TemplatesTestBed> {
  const { prefix, db, close } = await openTestSchema({ tag, base: 'templates', migrations: TEMPLATES_MIGRATIONS });
  const services = createTemplatesServices({ db });
  await services.templates.seedCatalog();
  return { ...services, prefix, db, close };
}

export { rejectionOf };
