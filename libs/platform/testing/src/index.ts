export * from './processes';
export * from './mysql-cleanup';
