/**
 * Schema and user names end up inside DDL (CREATE DATABASE, GRANT ... ON `x`.*), where placeholders
 * cannot go, so every name is checked against this pattern before it is interpolated.
 * Lowercase only: MySQL schema names map to directories, whose case sensitivity differs by OS.
 */
const IDENTIFIER_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export function isValidIdentifier(name: string): boolean {
  return IDENTIFIER_PATTERN.test(name);
}

/** Throws unless `name` is safe to interpolate as a schema or user name; `role` names it in the error. */
export function assertIdentifier(role: string, name: string): string {
  if (!isValidIdentifier(name)) {
    throw new Error(`Invalid MySQL ${role} name ${JSON.stringify(name)}: expected a lowercase letter followed by up to 63 lowercase letters, digits or _`);
  }
  return name;
}

/** `prefix + base`, validated; the prefix (MYSQL_SCHEMA_PREFIX) keeps parallel test runs in separate schemas. */
export function schemaName(prefix: string, base: string): string {
  return assertIdentifier('schema', `${prefix}${base}`);
}
