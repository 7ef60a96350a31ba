export { createObjectStore, objectStoreFromConfig } from './object-store';
export type { ListedFile, ListPage, ListPageRequest, ObjectStat, ObjectStore, ObjectStoreOptions, ObjectStoreSettings, PutObjectOptions } from './object-store';
export { accountKey, validateObjectKey, validatePrefix, MAX_KEY_BYTES } from './object-key';
export { MAX_LIST_LIMIT } from './list-page';
export { MIN_PART_SIZE } from './multipart-upload';
export { InvalidObjectKeyError, ObjectNotFoundError, ObjectSizeMismatchError, ObjectStoreUnavailableError } from './object-store.errors';
export { startEmbeddedS3 } from './embedded-s3-server';
export type { EmbeddedS3, EmbeddedS3Options } from './embedded-s3-server';
