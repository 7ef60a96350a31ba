/**
 * The one shape of a gRPC service: a spec says what is particular to the service (config schema,
 * schema migrations, streams, seed, handlers); runGrpcService does the rest the same way for all.
 */
export { grpcServiceFields, peerAddressFields, type GrpcServiceConfig } from './service.config';
export { createCallGuard, type CallGuard, type GuardedCall } from './call-guard';
export { currentCall, declareCall, inCall, methodName, unaryHandlers, type DeclaredAccess, type UnaryHandler } from './unary-handlers';
export { createEventOutbox, type DomainEvent, type EventOutbox } from './event-outbox';
export { actingAs, TEST_PRINCIPAL } from './acting-as';
export { auditChangeConsumerSpec, auditEvent, changedFields, currentActor, isSecretField, recordChange, redactRecord, type AuditedChange } from './audit-trail';
export {
  grpcServiceName,
  startGrpcService,
  type BackgroundTask,
  type GrpcServiceDeps,
  type GrpcServiceSpec,
  type RunningGrpcService,
  type SeedDeps,
} from './grpc-service';
export { startPeriodicTask, type PeriodicTaskOptions } from './periodic-task';
export { runGrpcService, type GrpcServiceProcess, type RunGrpcServiceOptions } from './run-grpc-service';
export { runWorker, workerFields, type RunWorkerOptions, type WorkerConfig, type WorkerDeps, type WorkerProcess, type WorkerSpec } from './run-worker';
export { createViewChangeAnnouncer, type ViewChangeAnnouncer, type ViewChangeAnnouncerOptions } from './view-changes';
export { startModuleWorker } from './module-worker';
export { openProcessShell, type ProcessOptions, type ProcessShell } from './process-shell';
