import type { ServiceDatabase } from '@platform/mysql';
import type { EventOutbox } from '@platform/service';
import { TagVariableMapRepository } from './tag-variable-maps/tag-variable-map.repository';
import { TagVariableMapService } from './tag-variable-maps/tag-variable-map.service';
import { TagRepository } from './tags/tag.repository';
import { TagService } from './tags/tag.service';
import { TrackerRepository } from './trackers/tracker.repository';
import { TrackerService } from './trackers/tracker.service';

export interface TaggingTrackersServices {
  tagVariableMaps: TagVariableMapService;
  tags: TagService;
  trackers: TrackerService;
}

/** Repositories and services over one database; the gRPC server and the specs build them the same way. */
export function createTaggingTrackersServices(deps: { db: ServiceDatabase; publicBaseUrl: string; events: EventOutbox }): TaggingTrackersServices {
  const tagVariableMaps = new TagVariableMapService(deps.db.knex, deps.events, new TagVariableMapRepository(deps.db));
  return {
    tagVariableMaps,
    tags: new TagService(deps.db.knex, new TagRepository(deps.db), tagVariableMaps, deps.publicBaseUrl),
    trackers: new TrackerService(deps.db.knex, deps.events, new TrackerRepository(deps.db)),
  };
}
