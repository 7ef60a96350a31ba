import type { templatesV1 } from '@contracts/proto';
import type { Metadata, PeerClient } from '@platform/grpc';

/** Whether a template exists and the account may build a campaign from it (a System template, or one of its own Custom ones). */
export interface TemplateVisibility {
  isVisible(accountId: number, templateIdx: number): Promise<boolean>;
}

/**
 * The templates service answers it (GetTemplateVisibility), asked on behalf of the incoming call's
 * caller: templates re-checks that caller's account scope itself.
 */
export const templateVisibilityFor =
  (templates: PeerClient<templatesV1.TemplatesServiceClient>) =>
  (incoming: Metadata): TemplateVisibility => ({
    isVisible: async (accountId, templateIdx) => (await templates.as(incoming).getTemplateVisibility({ accountId, templateIdx })).visible,
  });
