/**
 * Values of the templates domain that the gateway and the service both need: the enumerations of
 * the retail template filters, the layout shape and the field bounds. Declared here once so the edge
 * schema and the service's own re-check cannot disagree.
 */

export const TEMPLATE_OWNERSHIPS = ['System', 'Custom'] as const;
export type TemplateOwnership = (typeof TEMPLATE_OWNERSHIPS)[number];

export const TEMPLATE_INVENTORY_TYPES = ['offsite', 'onsite'] as const;

export const TEMPLATE_PRODUCT_INFORMATION_SOURCES = ['Upload Your Own Assets', 'Retailer Product Feed', 'Hybrid', 'Dynamic'] as const;

export const TEMPLATE_PRODUCT_SELECTION_METHODS = ['Fixed Product Selection', 'Dynamic Product Selection'] as const;

export const TEMPLATE_CREATIVE_STYLES = ['Static Banner', 'Animated Banner', 'Animated Carousel', 'Video', 'Social', 'REC'] as const;

export const TEMPLATE_TYPES = ['Standard', 'Dynamic', 'Carousel', 'Offer Feed', 'Geo Feed', 'Custom'] as const;

export const TEMPLATE_NAME_MAX = 200;
export const TEMPLATE_AD_FORMAT_MAX = 64;
export const TEMPLATE_CATEGORY_MAX = 64;
/** `<width>x<height>` in pixels. */
export const TEMPLATE_DIMENSION_PATTERN = '^[1-9][0-9]{0,3}x[1-9][0-9]{0,3}$';
export const TEMPLATE_DIMENSION_MAX = 9;
/** Items of each array filter and of each array field of a template. */
export const TEMPLATE_LIST_MAX_ITEMS = 20;
/** Layouts of one template (one per dimension). */
export const TEMPLATE_LAYOUTS_MAX = 10;
/** Canvas edge and font size caps, so a layout cannot make the thumbnail renderer allocate without bound. */
export const TEMPLATE_CANVAS_MAX = 4000;
export const TEMPLATE_FONT_SIZE_MAX = 400;
export const TEMPLATE_TEXT_MAX = 100;
/** `#rrggbb`. */
export const TEMPLATE_COLOR_PATTERN = '^#[0-9a-fA-F]{6}$';

/** A rectangle on the canvas, in pixels from the top left corner. */
export interface TemplateBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A text element: where it sits, its colour, size and placeholder text. */
export interface TemplateTextElement {
  box: TemplateBox;
  color: string;
  fontSize: number;
  text: string;
}

/** The call-to-action button: a text element on a filled box. */
export interface TemplateButtonElement extends TemplateTextElement {
  backgroundColor: string;
}

/** How a template lays out one dimension. */
export interface TemplateLayout {
  /** `<width>x<height>`, one of the template's dimensions. */
  dimension: string;
  backgroundColor: string;
  logo: TemplateBox;
  productImage: TemplateBox;
  headline: TemplateTextElement;
  price: TemplateTextElement;
  callToAction: TemplateButtonElement;
}

/** Width and height of a `<width>x<height>` dimension. */
export function parseDimension(dimension: string): { width: number; height: number } | undefined {
  const match = /^([1-9][0-9]{0,3})x([1-9][0-9]{0,3})$/.exec(dimension);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}

/**
 * Where a template thumbnail lives in the platform's bucket: the templates service stores it there and
 * the gateway serves it at /files/templates/<key>.png. The key is a SHA-256 (hex) of what it shows.
 */
export const TEMPLATE_THUMBNAIL_KEY_PATTERN = '^[0-9a-f]{64}$';

export const templateThumbnailObjectKey = (key: string) => `templates/${key}.png`;
