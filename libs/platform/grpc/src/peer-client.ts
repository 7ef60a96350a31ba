import { Metadata, type Client, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import { callUnary, createGrpcClient, type ClientConstructor } from './grpc.client';

/**
 * ts-proto's clients declare each unary method with overloads; the last, (request, metadata,
 * options, callback), is the one these types read the request and response from.
 */
type UnaryCallback<Res> = (error: ServiceError | null, response: Res) => void;
type LastOverload<F> = F extends {
  (request: infer Req, metadata: Metadata, options: never, callback: UnaryCallback<infer Res>): unknown;
}
  ? [Req, Res]
  : never;

/** A service's unary methods as promises, with the caller's principal and a deadline bound in. */
export type PromiseClient<C> = {
  [K in keyof C as LastOverload<C[K]> extends never ? never : K]: (request: LastOverload<C[K]>[0]) => Promise<LastOverload<C[K]>[1]>;
};

/** How to reach one gRPC service: shared by the gateway's registry and by services that call a peer. */
export interface ServiceEndpoint<C extends Client = Client> {
  /** The service's name in logs, readiness checks and 5xx problems. */
  label: string;
  /** Environment variable holding `host:port`, with its default for `npm start`. */
  addressVariable: string;
  defaultAddress: string;
  Client: ClientConstructor<C>;
  /** ts-proto's service definition: its keys are the client's unary method names. */
  definition: ServiceDefinition;
}

const PRINCIPAL_HEADERS = ['x-principal', 'x-principal-sig'];

/**
 * The signed principal of an incoming call, ready to send on to a peer. Only the principal travels:
 * the rest of the incoming metadata (user agent, encodings, deadlines) belongs to that hop.
 */
export function forwardedPrincipal(incoming: Metadata): Metadata {
  const metadata = new Metadata();
  for (const header of PRINCIPAL_HEADERS) {
    const [value] = incoming.get(header);
    if (value !== undefined) metadata.set(header, value);
  }
  return metadata;
}

/** A service's client to one peer service. */
export interface PeerClient<C extends Client> {
  /**
   * The peer's methods as promises on behalf of the incoming call's caller: the peer re-checks that
   * principal's scope itself, so a service can never reach further than its caller could.
   */
  as(incoming: Metadata, deadlineMs?: number): PromiseClient<C>;
  close(): void;
}

/** Five seconds, as the gateway's default: a peer that is slower than that is failing. */
const DEFAULT_PEER_DEADLINE_MS = 5_000;

export function connectPeer<C extends Client>(endpoint: ServiceEndpoint<C>, address: string): PeerClient<C> {
  const client = createGrpcClient(endpoint.Client, address);
  const methodNames = Object.keys(endpoint.definition);
  return {
    as(incoming, deadlineMs = DEFAULT_PEER_DEADLINE_MS) {
      const metadata = forwardedPrincipal(incoming);
      const bound: Record<string, (request: unknown) => Promise<unknown>> = {};
      for (const name of methodNames) {
        const method = (client as unknown as Record<string, never>)[name];
        bound[name] = (request) => callUnary(client, method, request, { metadata: metadata.clone(), deadlineMs, target: endpoint.label, method: name });
      }
      return bound as PromiseClient<C>;
    },
    close: () => client.close(),
  };
}

/** A service's adapter to one peer, on behalf of the caller of one incoming call. */
export type PeerOf<P> = (call: { metadata: Metadata }) => P;

/**
 * How a service calls a peer: `adapter` (a service's `peers/<peer>.peer.ts`) turns the peer's client,
 * bound to the caller of an incoming call, into the domain-level functions the service's rules ask
 * for. A handler passes `peer(call)` to its service; it never sees the raw client.
 */
export function adaptPeer<C extends Client, P>(peer: PeerClient<C>, adapter: (client: PromiseClient<C>) => P): PeerOf<P> {
  return (call) => adapter(peer.as(call.metadata));
}
