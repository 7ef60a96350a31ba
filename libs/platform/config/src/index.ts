export * from './config.loader';
export * from './config.fields';
