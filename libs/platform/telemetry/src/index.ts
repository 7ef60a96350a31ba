export * from './metrics-registry';
export * from './metrics-endpoint';
export * from './rpc-metrics';
export * from './tracing';
