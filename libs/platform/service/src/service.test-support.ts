import type { ServiceDefinition } from '@grpc/grpc-js';
import { grpcServiceFields } from './service.config';
import type { GrpcServiceSpec } from './grpc-service';
import type { Migration } from '@platform/mysql';
import { z } from '@platform/config';

/** A hand-written one-method service, so the platform is tested without any app's proto. */
export interface EchoRequest {
  orgId: string;
  text: string;
}
export interface EchoResponse {
  text: string;
  seeded: string;
}

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString('utf8')),
};

export const echoDefinition = {
  echo: {
    path: '/test.v1.EchoService/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize as (bytes: Buffer) => EchoRequest,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize as (bytes: Buffer) => EchoResponse,
  },
} satisfies ServiceDefinition;

export type EchoImplementation = { echo: import('@grpc/grpc-js').handleUnaryCall<EchoRequest, EchoResponse> };

export const echoConfigSchema = z.object({ ...grpcServiceFields, ECHO_GREETING: z.string().default('hello') });
export type EchoConfig = z.infer<typeof echoConfigSchema>;

export const createGreetings: Migration = {
  name: '20261122090000_create_greetings',
  up: async (knex) => {
    await knex.schema.createTable('greetings', (t) => {
      t.string('id', 20).primary();
      t.string('text', 100).notNullable();
    });
  },
  down: async (knex) => {
    await knex.schema.dropTable('greetings');
  },
};

export type EchoSpec = GrpcServiceSpec<EchoConfig, EchoImplementation>;
