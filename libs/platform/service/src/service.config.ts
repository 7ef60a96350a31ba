import { commonFields, mysqlFields, natsFields, secretKey, z } from '@platform/config';

/**
 * The environment every gRPC service reads. A service's own schema spreads these and adds its
 * fields: `z.object({ ...grpcServiceFields, MY_SETTING: ... })`.
 */
export const grpcServiceFields = {
  ...commonFields,
  ...mysqlFields,
  ...natsFields,
  /** 127.0.0.1 outside containers; set 0.0.0.0 in one. */
  GRPC_HOST: z.string().default('127.0.0.1'),
  /** Unset: the service's own port from SERVICE_ENDPOINTS (@contracts/proto), so each service has its own. */
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Prometheus /metrics on this port, on GRPC_HOST; unset: not served (`npm start` gives each service one). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Shared by the gateway and services to sign and verify the caller's principal. */
  INTERNAL_AUTH_KEY: secretKey.optional(),
};

export type GrpcServiceConfig = z.infer<z.ZodObject<typeof grpcServiceFields>>;

/**
 * The config fields holding the addresses of the peers a service calls (`<NAME>_ADDR`, defaulting
 * to the `npm start` port): `z.object({ ...grpcServiceFields, ...peerAddressFields([SERVICE_ENDPOINTS.templates]) })`.
 */
export function peerAddressFields(endpoints: readonly { addressVariable: string; defaultAddress: string }[]): Record<string, z.ZodDefault<z.ZodString>> {
  return Object.fromEntries(
    endpoints.map((endpoint) => [
      endpoint.addressVariable,
      z
        .string()
        // One address, or several replicas of the peer as a gRPC `ipv4:` list (`npm start -- --replicas`).
        .regex(/^(?:[^\s:,]+:\d+|ipv4:(?:\d{1,3}\.){3}\d{1,3}:\d+(?:,(?:\d{1,3}\.){3}\d{1,3}:\d+)*)$/, 'host:port, or ipv4:<ip>:<port>,<ip>:<port>,...')
        .default(endpoint.defaultAddress),
    ]),
  );
}
