import { ChannelCredentials, Client, makeClientConstructor, Metadata, ServiceDefinition, ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

export interface HealthCheckResponse {
  status: 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';
}

interface HealthClientShape extends Client {
  check(request: { service: string }, options: { deadline: Date }, callback: (error: ServiceError | null, response?: HealthCheckResponse) => void): void;
  check(
    request: { service: string },
    metadata: Metadata,
    options: { deadline: Date },
    callback: (error: ServiceError | null, response?: HealthCheckResponse) => void,
  ): void;
}

/** grpc.health.v1 client built from the definition grpc-health-check ships, so both ends share one proto. */
export const HealthClient = makeClientConstructor(healthService as unknown as ServiceDefinition, 'grpc.health.v1.Health') as unknown as {
  new (address: string, credentials: ChannelCredentials): HealthClientShape;
};
