export * from './processes';
export * from './mysql-cleanup';
export * from './nats-cleanup';
