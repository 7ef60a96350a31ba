import type { ServiceDatabase } from '@platform/mysql';
import type { ObjectStore } from '@platform/s3';
import type { EventOutbox, ViewChangeAnnouncer } from '@platform/service';
import { TemplateRepository } from './templates/template.repository';
import { TemplateService } from './templates/template.service';
import { TemplateThumbnails } from './templates/template.thumbnail-store';

export interface TemplatesServices {
  templates: TemplateService;
}

/** Repositories and services over one database and bucket; the gRPC server and the specs build them the same way. */
export function createTemplatesServices(deps: {
  db: ServiceDatabase;
  store: ObjectStore;
  announceViewChange: ViewChangeAnnouncer;
  events: EventOutbox;
}): TemplatesServices {
  return {
    templates: new TemplateService(deps.db.knex, new TemplateRepository(deps.db), new TemplateThumbnails(deps.store), deps.announceViewChange, deps.events),
  };
}
