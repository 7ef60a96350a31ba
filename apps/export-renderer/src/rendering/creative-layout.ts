import {
  CONTENT_CTA_COLUMNS,
  CONTENT_DISPLAY_COLUMNS,
  CONTENT_IMAGE_COLUMNS,
  CONTENT_PRICE_COLUMNS,
  parseDimension,
  type TemplateBox,
  type TemplateLayout,
} from '@contracts/domain';

/** What one creative shows, read from the product's row in the asset source. */
export interface CreativeContent {
  name: string;
  price: string | null;
  callToAction: string | null;
  imageUrl: string | null;
  /** Brand colours (#rrggbb) the row may carry; the template's own otherwise. */
  brandColor: string | null;
  brandTextColor: string | null;
}

const BRAND_COLOR_COLUMNS = ['brandColor', 'brandColour', 'brand_color', 'backgroundColor'] as const;
const BRAND_TEXT_COLOR_COLUMNS = ['brandTextColor', 'brandTextColour', 'textColor'] as const;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
/** Characters of one drawn text: a row is customer data, so its texts are cut rather than drawn at any length. */
const DRAWN_TEXT_MAX = 80;

const text = (row: Record<string, unknown> | null, columns: readonly string[]): string | null => {
  for (const column of columns) {
    const value = row?.[column];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return null;
};

/** Drops characters an SVG text cannot carry (controls) and cuts to a drawable length. */
const drawable = (value: string) =>
  Array.from(value.replace(/\p{Cc}/gu, ' '))
    .slice(0, DRAWN_TEXT_MAX)
    .join('');

const color = (row: Record<string, unknown> | null, columns: readonly string[]) => {
  const value = text(row, columns);
  return value && HEX_COLOR.test(value) ? value : null;
};

export function creativeContentOf(row: Record<string, unknown> | null, contentValue: string): CreativeContent {
  const price = text(row, CONTENT_PRICE_COLUMNS);
  const cta = text(row, CONTENT_CTA_COLUMNS);
  return {
    name: drawable(text(row, CONTENT_DISPLAY_COLUMNS) ?? contentValue),
    price: price === null ? null : drawable(price),
    callToAction: cta === null ? null : drawable(cta),
    imageUrl: text(row, CONTENT_IMAGE_COLUMNS),
    brandColor: color(row, BRAND_COLOR_COLUMNS),
    brandTextColor: color(row, BRAND_TEXT_COLOR_COLUMNS),
  };
}

/** A layout for a dimension, and how it was found. */
export interface ChosenLayout {
  layout: TemplateLayout;
  /** `exact`: the template has this dimension; `scaled`: its nearest layout by aspect ratio, stretched; `default`: no template layout. */
  source: 'exact' | 'scaled' | 'default';
}

const scaleBox = (box: TemplateBox, sx: number, sy: number): TemplateBox => ({
  x: Math.round(box.x * sx),
  y: Math.round(box.y * sy),
  w: Math.max(1, Math.round(box.w * sx)),
  h: Math.max(1, Math.round(box.h * sy)),
});

/** The layout drawn at `width` x `height` pixels: every box scaled, font sizes by the smaller factor. */
export function scaleLayout(layout: TemplateLayout, width: number, height: number): TemplateLayout {
  const from = parseDimension(layout.dimension);
  if (!from) throw new Error(`Not a dimension: ${layout.dimension}`);
  const [sx, sy] = [width / from.width, height / from.height];
  const font = (size: number) => Math.max(6, Math.round(size * Math.min(sx, sy)));
  return {
    dimension: `${width}x${height}`,
    backgroundColor: layout.backgroundColor,
    logo: scaleBox(layout.logo, sx, sy),
    productImage: scaleBox(layout.productImage, sx, sy),
    headline: { ...layout.headline, box: scaleBox(layout.headline.box, sx, sy), fontSize: font(layout.headline.fontSize) },
    price: { ...layout.price, box: scaleBox(layout.price.box, sx, sy), fontSize: font(layout.price.fontSize) },
    callToAction: { ...layout.callToAction, box: scaleBox(layout.callToAction.box, sx, sy), fontSize: font(layout.callToAction.fontSize) },
  };
}

/**
 * A plain layout for a dimension no template layout fits: product image on the larger side, texts
 * beside or below it, so a campaign without a template still exports something readable.
 */
export function defaultLayout(width: number, height: number): TemplateLayout {
  const wide = width >= height * 1.5;
  const pad = Math.max(2, Math.round(Math.min(width, height) * 0.05));
  const font = (share: number) => Math.max(8, Math.round(Math.min(wide ? height : width, 600) * share));
  const image: TemplateBox = wide
    ? { x: pad, y: pad, w: Math.round(height - 2 * pad), h: height - 2 * pad }
    : { x: pad, y: pad, w: width - 2 * pad, h: Math.round(height * 0.55) };
  const textX = wide ? image.x + image.w + pad : pad;
  const textW = Math.max(1, width - textX - pad);
  const row = (y: number, h: number): TemplateBox => ({ x: textX, y, w: textW, h: Math.max(1, h) });
  const top = wide ? pad : image.y + image.h + pad;
  const left = height - top - pad;
  return {
    dimension: `${width}x${height}`,
    backgroundColor: '#ffffff',
    logo: { x: width - pad - Math.round(width * 0.15), y: pad, w: Math.max(1, Math.round(width * 0.15)), h: Math.max(1, Math.round(height * 0.08)) },
    productImage: image,
    headline: { box: row(top, Math.round(left * 0.35)), color: '#1a1a1a', fontSize: font(wide ? 0.22 : 0.07), text: 'Product name' },
    price: { box: row(top + Math.round(left * 0.35), Math.round(left * 0.3)), color: '#c8102e', fontSize: font(wide ? 0.2 : 0.065), text: '$0.00' },
    callToAction: {
      box: row(top + Math.round(left * 0.68), Math.round(left * 0.3)),
      color: '#ffffff',
      fontSize: font(wide ? 0.18 : 0.055),
      text: 'Shop now',
      backgroundColor: '#1a73e8',
    },
  };
}

/**
 * The template's layout for a placement's dimension at `resolution`: its own layout for that
 * dimension, else the one nearest in aspect ratio stretched to it, else a default layout.
 */
export function chooseLayout(layouts: readonly TemplateLayout[], dimension: string, resolution: number): ChosenLayout {
  const size = parseDimension(dimension);
  if (!size) throw new Error(`Not a dimension: ${dimension}`);
  const [width, height] = [size.width * resolution, size.height * resolution];
  const exact = layouts.find((l) => l.dimension === dimension);
  if (exact) return { layout: scaleLayout(exact, width, height), source: 'exact' };
  const ratio = size.width / size.height;
  const usable = layouts.filter((l) => parseDimension(l.dimension));
  if (usable.length > 0) {
    const distance = (l: TemplateLayout) => {
      const d = parseDimension(l.dimension) as { width: number; height: number };
      return Math.abs(Math.log(d.width / d.height / ratio));
    };
    const nearest = usable.reduce((best, l) => (distance(l) < distance(best) ? l : best));
    return { layout: scaleLayout(nearest, width, height), source: 'scaled' };
  }
  return { layout: defaultLayout(width, height), source: 'default' };
}

const escapeXml = (value: string) => value.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Everything of a creative but the product image, as SVG at the layout's pixel size: background
 * (the brand colour when the row has one), the logo band, the product's name, price and call to
 * action; `placeholder` draws a grey box where a missing image goes.
 */
export function creativeSvg(layout: TemplateLayout, content: CreativeContent, options: { placeholder: boolean }): string {
  const size = parseDimension(layout.dimension) as { width: number; height: number };
  const background = content.brandColor ?? layout.backgroundColor;
  const rect = (box: TemplateBox, fill: string, extra = '') => `<rect x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" fill="${fill}"${extra}/>`;
  const line = (box: TemplateBox, value: string, fill: string, fontSize: number, anchor: 'start' | 'middle' = 'start') => {
    const x = anchor === 'middle' ? box.x + box.w / 2 : box.x;
    const y = box.y + Math.min(box.h, fontSize);
    return `<text x="${x}" y="${y}" font-family="sans-serif" font-size="${fontSize}" font-weight="700" text-anchor="${anchor}" fill="${fill}" textLength="${box.w}" lengthAdjust="spacingAndGlyphs">${escapeXml(value)}</text>`;
  };
  // textLength squeezes a long text into its box; a short one keeps its natural width.
  const fitted = (box: TemplateBox, value: string, fill: string, fontSize: number, anchor: 'start' | 'middle' = 'start') =>
    value.length * fontSize * 0.6 > box.w
      ? line(box, value, fill, fontSize, anchor)
      : line(box, value, fill, fontSize, anchor).replace(/ textLength="[^"]*" lengthAdjust="[^"]*"/, '');
  const cta = layout.callToAction;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${size.width} ${size.height}">`,
    rect({ x: 0, y: 0, w: size.width, h: size.height }, background),
    rect(layout.logo, content.brandTextColor ?? '#ffffff', ' fill-opacity="0.85"'),
    options.placeholder ? rect(layout.productImage, '#d9d9d9', ' stroke="#999999"') : '',
    fitted(layout.headline.box, content.name, content.brandTextColor ?? layout.headline.color, layout.headline.fontSize),
    content.price === null ? '' : fitted(layout.price.box, content.price, layout.price.color, layout.price.fontSize),
    rect(cta.box, cta.backgroundColor, ` rx="${Math.min(cta.box.h / 2, 8)}"`),
    fitted(cta.box, content.callToAction ?? cta.text, cta.color, cta.fontSize, 'middle'),
    '</svg>',
  ].join('');
}
