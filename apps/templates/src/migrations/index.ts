import type { Migration } from '@platform/mysql';
import { createTemplates } from './20261123100000_create_templates';
import { splitTemplateAssets } from './20261123150000_split_template_assets';
import { createTemplateCatalogVersion } from './20261123160000_create_template_catalog_version';
import { storeTemplateThumbnails } from './20261124120000_store_template_thumbnails';

/** Every schema change of this service, in order; the outbox migration comes from @platform/nats. */
export const TEMPLATES_MIGRATIONS: Migration[] = [createTemplates, splitTemplateAssets, createTemplateCatalogVersion, storeTemplateThumbnails];
