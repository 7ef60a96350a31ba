import { AsyncLocalStorage } from 'node:async_hooks';
import type { handleUnaryCall, ServerUnaryCall } from '@grpc/grpc-js';
import { unary, type Principal } from '@platform/grpc';
import type { Logger } from '@platform/logging';

/**
 * Who may call a method: a permission name, or `peer` / `peer-reference` for methods other services
 * call on behalf of the same caller (@contracts/domain declares one per method, `MethodAccess`).
 */
export type DeclaredAccess = string;

/** What a generated (ts-proto) service definition says of one method. */
interface MethodDefinition {
  path: string;
  requestDeserialize(value: Buffer): unknown;
  responseDeserialize(value: Buffer): unknown;
}

type RequestOf<M> = M extends { requestDeserialize(value: Buffer): infer R } ? R : never;
type ResponseOf<M> = M extends { responseDeserialize(value: Buffer): infer R } ? R : never;

export type UnaryHandler<M> = (request: RequestOf<M>, call: ServerUnaryCall<RequestOf<M>, ResponseOf<M>>) => Promise<ResponseOf<M>>;

/** What the guard learns of the call it checks: the method's declared access, and whether it was checked. */
export interface CallDeclaration {
  method: string;
  access: DeclaredAccess;
  checked: boolean;
  /** The caller, once the guard verified it: the audit trail's actor (recordChange). */
  principal?: Principal;
}

const declarations = new WeakMap<object, CallDeclaration>();

/**
 * The declaration of the call being served, for code below the handler that must name who acts (the
 * audit trail) without every service method taking the call as a parameter, as the request id is carried.
 */
const currentCalls = new AsyncLocalStorage<CallDeclaration>();

export function currentCall(): CallDeclaration | undefined {
  return currentCalls.getStore();
}

/** Runs `work` as part of the call `declaration` describes; unaryHandlers does it for every call, tests for theirs. */
export function inCall<T>(declaration: CallDeclaration, work: () => T): T {
  return currentCalls.run(declaration, work);
}

/** The declaration of the method a call was made to; set by unaryHandlers before the handler runs. */
export function declarationOf(call: object): CallDeclaration | undefined {
  return declarations.get(call);
}

/** Attaches a method's declaration to a call; unaryHandlers does it for every call, tests for their fakes. */
export function declareCall(call: object, method: string, access: DeclaredAccess): CallDeclaration {
  const declaration = { method, access, checked: false };
  declarations.set(call, declaration);
  return declaration;
}

/** `CreateRetailCampaign`, from the method path `/channelsplans.v1.ChannelsPlansService/CreateRetailCampaign`. */
export const methodName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * Adapts a feature's async handlers to grpc-js. Each method's name (for the logs) comes from the
 * generated definition, and its access from the service's declaration, which the call guard reads:
 * a handler writes `guard.account(call, request.accountId)` and the permission checked is the one
 * declared. A handler that answers without having run the guard fails as an internal error, so a
 * method cannot be served unchecked by forgetting that line.
 */
export function unaryHandlers<D extends Record<string, MethodDefinition>, K extends keyof D & string>(
  definition: D,
  access: { readonly [P in keyof D]: DeclaredAccess },
  logger: Logger,
  handlers: { [P in K]: UnaryHandler<D[P]> },
): { [P in K]: handleUnaryCall<RequestOf<D[P]>, ResponseOf<D[P]>> } {
  const adapted = {} as Record<string, unknown>;
  for (const key of Object.keys(handlers) as K[]) {
    const name = methodName(definition[key].path);
    const service = definition[key].path.split('/')[1];
    const handler = handlers[key];
    adapted[key] = unary<RequestOf<D[K]>, ResponseOf<D[K]>>(
      logger,
      name,
      async (request, call) => {
        const declaration = declareCall(call, name, access[key]);
        const response = await inCall(declaration, () => handler(request, call));
        if (!declaration.checked) throw new Error(`${name} answered without checking its caller (no guard call)`);
        return response;
      },
      service,
    );
  }
  return adapted as { [P in K]: handleUnaryCall<RequestOf<D[P]>, ResponseOf<D[P]>> };
}
