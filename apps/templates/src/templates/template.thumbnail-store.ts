import { TEMPLATE_THUMBNAIL_KEY_PATTERN, templateThumbnailObjectKey, type TemplateLayout } from '@contracts/domain';
import { problem } from '@platform/errors';
import type { ObjectStore } from '@platform/s3';
import { renderThumbnail, thumbnailKey } from './template.thumbnail';

/** Listed to find what the bucket holds: the folder of templateThumbnailObjectKey. */
const THUMBNAIL_PREFIX = templateThumbnailObjectKey('').replace(/\.png$/, '');
const THUMBNAIL_KEY = new RegExp(TEMPLATE_THUMBNAIL_KEY_PATTERN);

const LIST_PAGE = 1000;

/** Our own object store failing is a 503 (a dependency of ours), never a 500 with its internals. */
const storeUnavailable = (cause: unknown) => problem('OBJECT_STORE_UNAVAILABLE', 'The thumbnail storage is not available; try again shortly.', { cause });

/** Thumbnails rendered once into object storage, each under the content hash of the layout it shows. */
export class TemplateThumbnails {
  constructor(private readonly objects: ObjectStore) {}

  /** Renders the layout's thumbnail and stores it; resolves with its key once the object is there. */
  store(layout: TemplateLayout): Promise<string> {
    return this.storeAs(thumbnailKey(layout), layout);
  }

  /** Draws the layout under a key already recorded (a missing object is redrawn where its URL points). */
  async storeAs(key: string, layout: TemplateLayout): Promise<string> {
    const png = await renderThumbnail(layout);
    try {
      await this.objects.putObject(templateThumbnailObjectKey(key), png, { contentType: 'image/png', size: png.length });
    } catch (error) {
      throw storeUnavailable(error);
    }
    return key;
  }

  /** The keys of every thumbnail stored, read page by page from the bucket's listing. */
  async storedKeys(): Promise<Set<string>> {
    const keys = new Set<string>();
    let startAfter: string | undefined;
    do {
      const page = await this.objects.listPage({ prefix: THUMBNAIL_PREFIX, delimiter: '', startAfter, limit: LIST_PAGE });
      for (const file of page.files) {
        const key = file.key.slice(THUMBNAIL_PREFIX.length).replace(/\.png$/, '');
        if (THUMBNAIL_KEY.test(key) && templateThumbnailObjectKey(key) === file.key) keys.add(key);
      }
      startAfter = page.nextKey ?? undefined;
    } while (startAfter);
    return keys;
  }

  ensureBucket(): Promise<void> {
    return this.objects.ensureBucket();
  }
}
