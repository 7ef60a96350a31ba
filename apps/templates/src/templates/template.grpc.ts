import { type TemplateLayout, TEMPLATES_ACCESS } from '@contracts/domain';
import { templatesV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { TemplateFilters, TemplateInput, TemplateRecord } from './template.model';
import type { TemplateService } from './template.service';

export const toTemplate = (record: TemplateRecord): v1.Template => ({
  templateIdx: record.templateIdx,
  templateName: record.templateName,
  ownership: record.ownership,
  isBookmarked: record.isBookmarked,
  retailerId: record.retailerId,
  inventoryType: record.inventoryType,
  adFormat: record.adFormat,
  sourceOfProductInformation: record.sourceOfProductInformation,
  productSelectionMethod: record.productSelectionMethod,
  creativeStyle: record.creativeStyle,
  category: record.category,
  templateType: record.templateType,
  dimensions: record.dimensions,
  layouts: record.layouts,
  thumbnailKey: record.thumbnailKey,
  createdTime: record.createdAt.toISOString(),
  updatedTime: record.updatedAt.toISOString(),
});

const toFilters = (f: v1.TemplateFilters | undefined): TemplateFilters => ({
  campaignName: f?.campaignName,
  ownership: f?.ownership,
  isBookmarked: f?.isBookmarked,
  retailerId: f?.retailerId,
  inventoryType: f?.inventoryType,
  adFormat: f?.adFormat,
  sourceOfProductInformation: f?.sourceOfProductInformation,
  productSelectionMethod: f?.productSelectionMethod,
  creativeStyle: f?.creativeStyle,
  category: f?.category,
  templateType: f?.templateType,
});

const toInput = (request: v1.CreateTemplateRequest | v1.UpdateTemplateRequest): TemplateInput => ({
  templateName: request.templateName,
  retailerId: request.retailerId,
  inventoryType: request.inventoryType,
  adFormat: request.adFormat,
  sourceOfProductInformation: request.sourceOfProductInformation,
  productSelectionMethod: request.productSelectionMethod,
  creativeStyle: request.creativeStyle,
  category: request.category,
  templateType: request.templateType,
  // Missing members of a layout are refused by the service's layout rules.
  layouts: request.layouts as TemplateLayout[],
});

export function templateGrpc({ logger, guard, templates }: { logger: Logger; guard: CallGuard; templates: TemplateService }): v1.TemplatesServiceServer {
  return unaryHandlers(v1.TemplatesServiceService, TEMPLATES_ACCESS, logger, {
    searchTemplates: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await templates.search(request.accountId, toFilters(request.filters), request.page, { includeLayouts: request.includeLayouts });
      return { templates: page.items.map(toTemplate), total: page.total };
    },

    createTemplate: async (request, call) => {
      guard.account(call, request.accountId);
      return { templateIdx: await templates.create(request.accountId, toInput(request)) };
    },

    updateTemplate: async (request, call) => {
      guard.account(call, request.accountId);
      await templates.update(request.accountId, request.templateIdx, toInput(request));
      return {};
    },

    setBookmark: async (request, call) => {
      guard.account(call, request.accountId);
      await templates.setBookmark(request.accountId, request.templateIdx, request.bookmarked);
      return {};
    },

    deleteTemplate: async (request, call) => {
      guard.account(call, request.accountId);
      await templates.delete(request.accountId, request.templateIdx);
      return {};
    },

    getTemplateVisibility: async (request, call) => {
      guard.peer(call, request.accountId);
      const visible = await templates.visibleTo(request.accountId, request.templateIdx);
      return { visible: visible !== undefined, templateName: visible?.templateName };
    },

    getTemplateLayouts: async (request, call) => {
      guard.peer(call, request.accountId);
      const template = await templates.renderingFor(request.accountId, request.templateIdx);
      return template ? { found: true, ...template } : { found: false, creativeStyle: [], templateType: [], layouts: [] };
    },
  });
}
