import { counter, histogram, LATENCY_BUCKETS, lazily } from './metrics-registry';

/** Labels of one gRPC call, named as grpc-prometheus names them so existing dashboards read them. */
export interface RpcLabels {
  /** `channelsplans.v1.ChannelsPlansService` on the server; the target service's label on the client. */
  grpc_service: string;
  /** `CreateRetailCampaign` (server) or the client's method name. */
  grpc_method: string;
  /** The status name: `OK`, `NOT_FOUND`, `UNAVAILABLE`, ... */
  grpc_code: string;
}

const LABELS = ['grpc_service', 'grpc_method', 'grpc_code'] as const;

const serverHandled = lazily(() =>
  counter({ name: 'grpc_server_handled_total', help: 'gRPC calls this service answered, by method and status code', labelNames: LABELS }),
);
const serverSeconds = lazily(() =>
  histogram({ name: 'grpc_server_handling_seconds', help: 'Time this service took to answer a gRPC call', labelNames: LABELS, buckets: LATENCY_BUCKETS }),
);
const clientHandled = lazily(() =>
  counter({ name: 'grpc_client_handled_total', help: 'gRPC calls this process made, by target, method and status code', labelNames: LABELS }),
);
const clientSeconds = lazily(() =>
  histogram({
    name: 'grpc_client_handling_seconds',
    help: 'Time from sending a gRPC call to its answer (retries included)',
    labelNames: LABELS,
    buckets: LATENCY_BUCKETS,
  }),
);

/** Counts one answered call and its duration; created lazily so a process that serves no gRPC shows none. */
export function observeGrpcServerCall(labels: RpcLabels, seconds: number): void {
  serverHandled().inc(labels);
  serverSeconds().observe(labels, seconds);
}

export function observeGrpcClientCall(labels: RpcLabels, seconds: number): void {
  clientHandled().inc(labels);
  clientSeconds().observe(labels, seconds);
}
