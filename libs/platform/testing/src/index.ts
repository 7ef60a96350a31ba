export * from './processes';
export * from './mysql-cleanup';
export * from './nats-cleanup';
export * from './service-schema';
export * from './external-tools';
export * from './daemon-process';
export * from './private-mariadb';
export * from './private-nats';
