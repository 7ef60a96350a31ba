import type { ChannelCredentials, Client, ServiceDefinition } from '@grpc/grpc-js';
import { channelsPlansV1, templatesV1 } from '@contracts/proto';

/** One gRPC backend of the gateway: how to reach it and what it serves. */
export interface BackendEntry<C extends Client = Client> {
  /** The service's name in logs, readiness checks and 5xx problems. */
  label: string;
  /** Environment variable holding `host:port`, with its default for `npm start`. */
  addressVariable: string;
  defaultAddress: string;
  Client: new (address: string, credentials: ChannelCredentials, options?: object) => C;
  /** ts-proto's service definition: its keys are the client's unary method names. */
  definition: ServiceDefinition;
}

const entry = <C extends Client>(e: BackendEntry<C>) => e;

/**
 * Every backend the gateway routes to. Adding a service is one entry here: the address variable,
 * the client, its readiness check and the typed client routes receive (ctx.backends.<key>) all
 * follow from it.
 */
export const BACKENDS = {
  channelsPlans: entry({
    label: 'channels-plans',
    addressVariable: 'CHANNELS_PLANS_ADDR',
    defaultAddress: '127.0.0.1:50051',
    Client: channelsPlansV1.ChannelsPlansServiceClient,
    definition: channelsPlansV1.ChannelsPlansServiceService,
  }),
  templates: entry({
    label: 'templates',
    addressVariable: 'TEMPLATES_ADDR',
    // GRPC_PORT_BASE + 5, the templates offset in tools/launcher/apps.registry.ts.
    defaultAddress: '127.0.0.1:50056',
    Client: templatesV1.TemplatesServiceClient,
    definition: templatesV1.TemplatesServiceService,
  }),
};

export type BackendKey = keyof typeof BACKENDS;
export type BackendClientOf<K extends BackendKey> = InstanceType<(typeof BACKENDS)[K]['Client']>;

/** Config fields of the backends' addresses, derived from the registry so none is forgotten. */
export function backendAddressFields<T>(field: (defaultAddress: string) => T): Record<string, T> {
  return Object.fromEntries(Object.values(BACKENDS).map((b) => [b.addressVariable, field(b.defaultAddress)]));
}
