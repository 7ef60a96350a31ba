import {
  parseDimension,
  TEMPLATE_CREATIVE_STYLES,
  TEMPLATE_INVENTORY_TYPES,
  TEMPLATE_PRODUCT_INFORMATION_SOURCES,
  TEMPLATE_PRODUCT_SELECTION_METHODS,
  TEMPLATE_TYPES,
  type TemplateLayout,
} from '@contracts/domain';
import type { TemplateInput } from './template.model';

/** A System template as shipped: its stable key and what it describes. */
export interface CatalogTemplate extends TemplateInput {
  catalogKey: string;
}

interface Palette {
  background: string;
  text: string;
  accent: string;
}

const PALETTES: readonly Palette[] = [
  { background: '#0b3d91', text: '#ffffff', accent: '#ffcc00' },
  { background: '#ffffff', text: '#1a1a1a', accent: '#e4002b' },
  { background: '#f4efe6', text: '#2d2a26', accent: '#2e7d32' },
  { background: '#1f1f1f', text: '#fafafa', accent: '#00b2a9' },
  { background: '#fff4e0', text: '#4a2c00', accent: '#f57c00' },
  { background: '#e8f1fb', text: '#0d2b4e', accent: '#6a1b9a' },
];

/**
 * A layout proportional to the canvas: a wide banner puts the product left and the copy right, a
 * tall or square one stacks logo, product, copy and button.
 */
export function layoutFor(dimension: string, palette: Palette, headline: string, cta: string): TemplateLayout {
  const size = parseDimension(dimension);
  if (!size) throw new Error(`Not a dimension: ${dimension}`);
  const { width: w, height: h } = size;
  const r = Math.round;
  const font = (share: number) => Math.max(8, r(Math.min(w, h) * share));
  if (w >= h * 2) {
    const pad = r(h * 0.1);
    const copyX = r(h * 1.2) + pad;
    return {
      dimension,
      backgroundColor: palette.background,
      logo: { x: w - r(h * 0.9), y: pad, w: r(h * 0.8), h: r(h * 0.3) },
      productImage: { x: pad, y: pad, w: r(h * 1.2) - pad, h: h - 2 * pad },
      headline: { box: { x: copyX, y: pad, w: r(w * 0.45), h: r(h * 0.35) }, color: palette.text, fontSize: font(0.22), text: headline },
      price: { box: { x: copyX, y: r(h * 0.5), w: r(w * 0.2), h: r(h * 0.3) }, color: palette.accent, fontSize: font(0.2), text: '$9.99' },
      callToAction: {
        box: { x: w - r(h * 0.9), y: r(h * 0.55), w: r(h * 0.8), h: r(h * 0.32) },
        color: palette.background,
        backgroundColor: palette.accent,
        fontSize: font(0.16),
        text: cta,
      },
    };
  }
  const pad = r(w * 0.06);
  return {
    dimension,
    backgroundColor: palette.background,
    logo: { x: pad, y: pad, w: r(w * 0.35), h: r(h * 0.1) },
    productImage: { x: pad, y: r(h * 0.15), w: w - 2 * pad, h: r(h * 0.45) },
    headline: { box: { x: pad, y: r(h * 0.62), w: w - 2 * pad, h: r(h * 0.1) }, color: palette.text, fontSize: font(0.07), text: headline },
    price: { box: { x: pad, y: r(h * 0.74), w: r(w * 0.4), h: r(h * 0.08) }, color: palette.accent, fontSize: font(0.07), text: '$9.99' },
    callToAction: {
      box: { x: r(w * 0.5), y: r(h * 0.84), w: r(w * 0.5) - pad, h: r(h * 0.1) },
      color: palette.background,
      backgroundColor: palette.accent,
      fontSize: font(0.06),
      text: cta,
    },
  };
}

const RETAILERS = [
  { retailerId: 101, name: 'Northmart' },
  { retailerId: 102, name: 'FreshCo' },
  { retailerId: 103, name: 'Urban Home' },
  { retailerId: 104, name: 'PetPlanet' },
];
const AD_FORMATS = [
  { adFormat: 'Display Banner', dimensions: ['300x250', '728x90', '160x600'] },
  { adFormat: 'Sponsored Brand', dimensions: ['970x250', '300x250'] },
  { adFormat: 'Native', dimensions: ['300x250', '320x480'] },
  { adFormat: 'Video', dimensions: ['640x360'] },
  { adFormat: 'Social Story', dimensions: ['1080x1920', '1080x1080'] },
];
const CATEGORIES = ['Grocery', 'Beauty', 'Electronics', 'Home & Garden', 'Pets', 'Baby', 'Apparel', 'Health'];
const HEADLINES = ['Fresh deals this week', 'New arrivals', 'Save on favourites', 'Top picks for you', 'Limited time offer', 'Stock up and save'];
const CTAS = ['Shop now', 'Buy now', 'Learn more', 'Add to cart'];

/** Cycles a list so every value appears across the catalog. */
const pick = <T>(values: readonly T[], i: number): T => values[i % values.length] as T;

/**
 * The System catalog: 36 templates over four retailers and five formats. Indices are spread so that
 * every value of every filter enumeration occurs, in varied combinations, and several templates
 * carry more than one style, category and type (for the any-of filters).
 */
export const TEMPLATE_CATALOG: readonly CatalogTemplate[] = Array.from({ length: 36 }, (_, i) => {
  const retailer = pick(RETAILERS, i);
  const format = pick(AD_FORMATS, i);
  const style = pick(TEMPLATE_CREATIVE_STYLES, i);
  const type = pick(TEMPLATE_TYPES, i + Math.floor(i / 6));
  const secondStyle = i % 4 === 0 ? [pick(TEMPLATE_CREATIVE_STYLES, i + 2)] : [];
  const secondType = i % 5 === 0 ? [pick(TEMPLATE_TYPES, i + 3)] : [];
  const categories = [pick(CATEGORIES, i), ...(i % 3 === 0 ? [pick(CATEGORIES, i + 3)] : [])];
  const headline = pick(HEADLINES, i);
  const palette = pick(PALETTES, i);
  return {
    catalogKey: `system-${String(i + 1).padStart(3, '0')}`,
    templateName: `${retailer.name} ${style} ${format.adFormat} ${i + 1}`,
    retailerId: retailer.retailerId,
    inventoryType: pick(TEMPLATE_INVENTORY_TYPES, Math.floor(i / 2)),
    adFormat: format.adFormat,
    sourceOfProductInformation: pick(TEMPLATE_PRODUCT_INFORMATION_SOURCES, Math.floor(i / 3)),
    productSelectionMethod: pick(TEMPLATE_PRODUCT_SELECTION_METHODS, Math.floor(i / 4)),
    creativeStyle: [style, ...secondStyle.filter((s) => s !== style)],
    category: [...new Set(categories)],
    templateType: [type, ...secondType.filter((t) => t !== type)],
    layouts: format.dimensions.map((dimension) => layoutFor(dimension, palette, headline, pick(CTAS, i))),
  };
});
