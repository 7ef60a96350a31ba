import type { TemplateLayout } from '@contracts/domain';
import type { templatesV1 } from '@contracts/proto';
import type { PromiseClient } from '@platform/grpc';

export interface TemplateRendering {
  creativeStyle: string[];
  templateType: string[];
  layouts: TemplateLayout[];
}

/** What the renderer asks templates: the campaign template's layouts, undefined when the account cannot see it. */
export interface TemplatesPeer {
  layouts(accountId: number, templateIdx: number): Promise<TemplateRendering | undefined>;
}

export function templatesPeer(client: PromiseClient<templatesV1.TemplatesServiceClient>): TemplatesPeer {
  return {
    async layouts(accountId, templateIdx) {
      const answer = await client.getTemplateLayouts({ accountId, templateIdx });
      if (!answer.found) return undefined;
      return { creativeStyle: answer.creativeStyle, templateType: answer.templateType, layouts: answer.layouts as TemplateLayout[] };
    },
  };
}
