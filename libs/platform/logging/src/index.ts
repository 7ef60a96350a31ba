export * from './logger';
export * from './access-logger';
