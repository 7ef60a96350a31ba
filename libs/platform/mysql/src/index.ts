export { assertIdentifier, isValidIdentifier, schemaName } from './mysql.identifiers';
export { servicePassword, type ServicePasswordOptions } from './mysql.service-password';
export { createMigrationSource, type Migration } from './mysql.migration-source';
export { dropServiceDatabase, type ServiceAccount } from './mysql.provisioning';
export {
  migrateDown,
  openServiceDatabase,
  type OpenServiceDatabaseOptions,
  type ServiceDatabase,
} from './mysql.service-database';
export { isRetryableTransactionError, withTransaction, type WithTransactionOptions } from './mysql.transaction';
export { openOwnSchema, type MysqlEnv } from './mysql.own-schema';
