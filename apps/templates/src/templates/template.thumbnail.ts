import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { parseDimension, type TemplateBox, type TemplateLayout, type TemplateTextElement } from '@contracts/domain';

/** Longest edge of a thumbnail: large enough to recognise the layout in a picker. */
export const THUMBNAIL_EDGE = 240;

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const rect = (box: TemplateBox, fill: string, extra = '') => `<rect x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" fill="${fill}"${extra}/>`;

const text = (element: TemplateTextElement, anchor: 'start' | 'middle' = 'start') => {
  const x = anchor === 'middle' ? element.box.x + element.box.w / 2 : element.box.x;
  const y = element.box.y + Math.min(element.box.h, element.fontSize);
  return `<text x="${x}" y="${y}" font-family="sans-serif" font-size="${element.fontSize}" font-weight="700" text-anchor="${anchor}" fill="${element.color}">${escapeXml(element.text)}</text>`;
};

/** The layout drawn as SVG: background, logo and product placeholders, headline, price and call to action. */
export function layoutSvg(layout: TemplateLayout): string {
  const size = parseDimension(layout.dimension);
  if (!size) throw new Error(`Not a dimension: ${layout.dimension}`);
  const cta = layout.callToAction;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${size.width} ${size.height}">`,
    rect({ x: 0, y: 0, w: size.width, h: size.height }, layout.backgroundColor),
    rect(layout.logo, '#ffffff', ' fill-opacity="0.85" stroke="#888888" stroke-dasharray="4 2"'),
    rect(layout.productImage, '#d9d9d9', ' stroke="#999999"'),
    text(layout.headline),
    text(layout.price),
    rect(cta.box, cta.backgroundColor, ` rx="${Math.min(cta.box.h / 2, 8)}"`),
    text(cta, 'middle'),
    '</svg>',
  ].join('');
}

/** A PNG of the layout, scaled to fit THUMBNAIL_EDGE; deterministic for a given layout. */
export function renderThumbnail(layout: TemplateLayout): Promise<Buffer> {
  return sharp(Buffer.from(layoutSvg(layout)))
    .resize({ width: THUMBNAIL_EDGE, height: THUMBNAIL_EDGE, fit: 'inside' })
    .png({ compressionLevel: 9, palette: true })
    .toBuffer();
}

/**
 * Bumped whenever renderThumbnail draws a layout differently: it is part of every thumbnail key, so a
 * new drawing gets new keys (and new objects) rather than changing the bytes behind a cached one.
 */
export const THUMBNAIL_DRAWING_VERSION = 1;

/** JSON with object members in sorted order, so equal layouts hash alike whatever order their members came in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The thumbnail's key: SHA-256 (hex) of the drawing version and the layout it is drawn from. The
 * key names the content, so the object under it never changes (clients cache it for good), and it
 * cannot be guessed without knowing the very layout it shows.
 */
export function thumbnailKey(layout: TemplateLayout): string {
  return createHash('sha256')
    .update(`${THUMBNAIL_DRAWING_VERSION}\n${canonicalJson(layout)}`)
    .digest('hex');
}
