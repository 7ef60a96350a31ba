export * from './principal';
export * from './problem-metadata';
export * from './grpc.server';
export * from './grpc.client';
export { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
export type { ServerUnaryCall } from '@grpc/grpc-js';
export * from './peer-client';
export * from './call-deadline';
