import type { ServiceDatabase } from '@platform/mysql';
import { TemplateRepository } from './templates/template.repository';
import { TemplateService } from './templates/template.service';

export interface TemplatesServices {
  templates: TemplateService;
}

/** Repositories and services over one database; the gRPC server and the specs build them the same way. */
export function createTemplatesServices(deps: { db: ServiceDatabase }): TemplatesServices {
  return { templates: new TemplateService(new TemplateRepository(deps.db)) };
}
