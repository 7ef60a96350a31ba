import type { TemplateLayout, TemplateOwnership } from '@contracts/domain';

export interface TemplateRecord {
  templateIdx: number;
  templateName: string;
  ownership: TemplateOwnership;
  /** Owning account of a Custom template; null for System templates. */
  accountId: number | null;
  /** Whether the account that searched bookmarked it. */
  isBookmarked: boolean;
  retailerId: number;
  inventoryType: string;
  adFormat: string;
  sourceOfProductInformation: string;
  productSelectionMethod: string;
  creativeStyle: string[];
  category: string[];
  templateType: string[];
  dimensions: string[];
  /** Empty unless the search asked for layouts. */
  layouts: TemplateLayout[];
  /** Content hash of the first layout; the PNG is stored under it (see template.thumbnail-store.ts). */
  thumbnailKey: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Search filters as a caller sends them: every field optional, arrays match any listed value. */
export interface TemplateFilters {
  campaignName?: string;
  ownership?: string;
  isBookmarked?: boolean;
  retailerId?: number;
  inventoryType?: string;
  adFormat?: string;
  sourceOfProductInformation?: string;
  productSelectionMethod?: string;
  creativeStyle?: string[];
  category?: string[];
  templateType?: string[];
}

/** The fields of a template a caller describes; the service derives dimensions and the thumbnail. */
export interface TemplateInput {
  templateName: string;
  retailerId: number;
  inventoryType: string;
  adFormat: string;
  sourceOfProductInformation: string;
  productSelectionMethod: string;
  creativeStyle: string[];
  category: string[];
  templateType: string[];
  layouts: TemplateLayout[];
}

/** A checked template as the repository stores it. */
export interface NewTemplate extends TemplateInput {
  /** Stable key of a System template in the shipped catalog. */
  catalogKey: string | null;
  accountId: number | null;
  ownership: TemplateOwnership;
  dimensions: string[];
  thumbnailKey: string;
}
