import type { templatesV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';

/**
 * What channels-plans asks the templates service, on behalf of the caller of the operation it
 * serves: templates re-checks that caller's account scope itself.
 */
export interface TemplatesPeer {
  /** Whether a template exists and the account may build a campaign from it (a System template, or one of its own Custom ones). */
  isVisible(accountId: number, templateIdx: number): Promise<boolean>;
}

export function templatesPeer(client: PromiseClient<templatesV1.TemplatesServiceClient>): TemplatesPeer {
  return {
    isVisible: async (accountId, templateIdx) => (await client.getTemplateVisibility({ accountId, templateIdx })).visible,
  };
}
