export * from './app-error';
export * from './problem';
export * from './status-mapping';
export * from './field-rules';
export * from './field-table-rules';
export * from './dependency-failure';
export * from './deadline';
