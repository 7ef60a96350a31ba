import { templatesV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
import type { TemplatesServices } from './templates.services';
import { templateGrpc } from './templates/template.grpc';

/** The whole TemplatesService: each feature brings the handlers of its operations. */
export function templatesGrpc(deps: TemplatesServices & { logger: Logger; guard: CallGuard }): v1.TemplatesServiceServer {
  return { ...templateGrpc(deps) };
}
