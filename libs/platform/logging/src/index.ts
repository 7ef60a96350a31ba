export * from './logger';
export * from './access-logger';
export * from './request-context';
