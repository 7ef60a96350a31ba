import sharp from 'sharp';
import { EXPORT_LIMITS, parseDimension, type TemplateLayout } from '@contracts/domain';
import { chooseLayout, creativeSvg, type CreativeContent } from './creative-layout';

/** One drawn creative, as raw RGBA pixels (what every encoder starts from). */
export interface Frame {
  rgba: Buffer;
  width: number;
  height: number;
}

/** Still formats sharp writes directly. */
export type StillFormat = 'png' | 'jpg' | 'tiff';

const renderSeconds = Math.ceil(EXPORT_LIMITS.renderTimeoutMs / 1000);

/** sharp's own caps on a customer's image: decoded pixels and time, so a hostile file cannot exhaust the worker. */
const imageInput = { limitInputPixels: EXPORT_LIMITS.maxImagePixels, failOn: 'error' as const };

/**
 * The product image fitted into its box (kept whole, centred, transparent around it). Rejects for
 * bytes that are not an image sharp can decode within its limits.
 */
async function fittedImage(image: Buffer, box: { w: number; h: number }): Promise<Buffer> {
  return sharp(image, imageInput)
    .rotate()
    .resize(box.w, box.h, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .timeout({ seconds: renderSeconds })
    .toBuffer();
}

/**
 * Draws one creative at the layout's pixel size: the SVG of background and texts, then the product
 * image composited into its box. `image` null draws the placeholder instead; an image sharp cannot
 * decode is reported through the answer's `imageError` and drawn as the placeholder too.
 */
export async function renderFrame(layout: TemplateLayout, content: CreativeContent, image: Buffer | null): Promise<Frame & { imageError?: string }> {
  const size = parseDimension(layout.dimension) as { width: number; height: number };
  let fitted: Buffer | null = null;
  let imageError: string | undefined;
  if (image) {
    try {
      fitted = await fittedImage(image, layout.productImage);
    } catch (error) {
      imageError = `the product image cannot be decoded (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  const svg = Buffer.from(creativeSvg(layout, content, { placeholder: fitted === null }));
  const { data, info } = await sharp(svg)
    .composite(fitted ? [{ input: fitted, left: layout.productImage.x, top: layout.productImage.y }] : [])
    .ensureAlpha()
    .raw()
    .timeout({ seconds: renderSeconds })
    .toBuffer({ resolveWithObject: true });
  if (info.width !== size.width || info.height !== size.height) throw new Error(`drew ${info.width}x${info.height} for ${layout.dimension}`);
  return { rgba: data, width: info.width, height: info.height, ...(imageError ? { imageError } : {}) };
}

const raw = (frame: Frame) => sharp(frame.rgba, { raw: { width: frame.width, height: frame.height, channels: 4 } });

/** One frame as a png, jpg (flattened on white) or tiff file. */
export function encodeStill(frame: Frame, format: StillFormat): Promise<Buffer> {
  const image = raw(frame);
  switch (format) {
    case 'png':
      return image.png({ compressionLevel: 6 }).toBuffer();
    case 'jpg':
      return image.flatten({ background: '#ffffff' }).jpeg({ quality: 90, mozjpeg: false }).toBuffer();
    case 'tiff':
      return image.tiff({ compression: 'lzw' }).toBuffer();
  }
}

/** Frames as an animated gif looping forever, each shown `delayMs` (a single frame makes a still gif). */
export async function encodeGif(frames: readonly Frame[], delayMs: number): Promise<Buffer> {
  if (frames.length === 0) throw new Error('encodeGif: no frames');
  if (frames.length === 1) return raw(frames[0]).gif().toBuffer();
  const pngs = await Promise.all(frames.map((frame) => raw(frame).png({ compressionLevel: 1 }).toBuffer()));
  return sharp(pngs, { join: { animated: true } })
    .gif({ loop: 0, delay: frames.map(() => delayMs) })
    .timeout({ seconds: renderSeconds })
    .toBuffer();
}

/**
 * Draws and encodes one creative of the default layout, texts included, and throws it away: the first
 * drawing in a process pays for loading the text renderer's fonts and configuration, which a worker
 * pays at start rather than inside its first export.
 */
export async function warmUpRenderer(): Promise<void> {
  const { layout } = chooseLayout([], '300x250', 1);
  const frame = await renderFrame(
    layout,
    { name: 'Warm-up', price: '$1.00', callToAction: 'Shop', imageUrl: null, brandColor: null, brandTextColor: null },
    null,
  );
  await encodeStill(frame, 'png');
}
