export { assertIdentifier, isValidIdentifier, schemaName } from './mysql.identifiers';
export { servicePassword, type ServicePasswordOptions } from './mysql.service-password';
export { createMigrationSource, type Migration } from './mysql.migration-source';
export { dropServiceDatabase, type ServiceAccount } from './mysql.provisioning';
export {
  migrateDown,
  openServiceDatabase,
  SchemaNotCurrentError,
  type OpenServiceDatabaseOptions,
  type ServiceDatabase,
  type SqlValue,
  type WriteResult,
} from './mysql.service-database';
export { LoadDataRows, type BulkValue } from './mysql.load-rows';
export { isRetryableTransactionError, withTransaction, type WithTransactionOptions } from './mysql.transaction';
export { migrateOwnSchema, openOwnSchema, type MysqlEnv } from './mysql.own-schema';
export { listWithTotal, listWithTotalColumn, listWithTotalQuery, TOTAL_COLUMN, type CountRow, type Page, type PageWindow } from './mysql.page';
export { duplicateKeyName, isDuplicateKey, rethrowDuplicateKey } from './mysql.duplicate-key';
export { readJsonColumn, writeJsonColumn } from './mysql.json-column';
export { fieldColumns, type FieldColumns } from './mysql.field-table';
export { isNamedLockFree, withNamedLock } from './mysql.named-lock';
export { admitJob, jobAdmissionMigration, type JobAdmission } from './mysql.job-admission';
