import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffprobe from '@ffprobe-installer/ffprobe';
import sharp from 'sharp';
import type { TemplateLayout } from '@contracts/domain';
import { chooseLayout, creativeContentOf } from './creative-layout';
import { encodeGif, encodeStill, renderFrame, warmUpRenderer, type Frame } from './creative-renderer';
import { encodeMp4, VIDEO_SECONDS_PER_FRAME } from './video-encoder';

const LAYOUT_300x250: TemplateLayout = {
  dimension: '300x250',
  backgroundColor: '#f4f1ea',
  logo: { x: 10, y: 10, w: 60, h: 20 },
  productImage: { x: 10, y: 40, w: 140, h: 140 },
  headline: { box: { x: 160, y: 50, w: 130, h: 30 }, color: '#111111', fontSize: 16, text: 'Headline' },
  price: { box: { x: 160, y: 100, w: 130, h: 30 }, color: '#c8102e', fontSize: 18, text: '$9.99' },
  callToAction: { box: { x: 160, y: 190, w: 120, h: 40 }, color: '#ffffff', fontSize: 14, text: 'Shop', backgroundColor: '#1a73e8' },
};

const ROW = { sku: 'SKU-1', name: 'Organic oat milk', price: '$2.49', callToAction: 'Buy now', brandColor: '#203040' };

/** A solid 64x64 product image of one colour, so where it lands can be checked by sampling pixels. */
const productImage = () =>
  sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 0, g: 200, b: 0 } } })
    .png()
    .toBuffer();

async function pixel(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 3)];
}

/** Not blank: the picture holds more than one colour, measurably spread. */
async function expectNotBlank(image: Buffer) {
  const stats = await sharp(image).stats();
  expect(stats.isOpaque || stats.channels.length > 0).toBe(true);
  expect(Math.max(...stats.channels.slice(0, 3).map((c) => c.stdev))).toBeGreaterThan(10);
}

describe('creative layout', () => {
  it("takes the template's own layout for the dimension, scaled by the resolution", () => {
    const chosen = chooseLayout([LAYOUT_300x250], '300x250', 2);
    expect(chosen.source).toBe('exact');
    expect(chosen.layout.dimension).toBe('600x500');
    expect(chosen.layout.productImage).toEqual({ x: 20, y: 80, w: 280, h: 280 });
    expect(chosen.layout.headline.fontSize).toBe(32);
  });

  it('stretches the nearest layout by aspect ratio to a dimension the template lacks, and falls back to a default without one', () => {
    const wide: TemplateLayout = { ...LAYOUT_300x250, dimension: '728x90' };
    expect(chooseLayout([LAYOUT_300x250, wide], '970x90', 1)).toMatchObject({ source: 'scaled', layout: { dimension: '970x90' } });
    expect(chooseLayout([LAYOUT_300x250, wide], '970x90', 1).layout.logo.w).toBe(Math.round(60 * (970 / 728)));
    expect(chooseLayout([], '160x600', 2)).toMatchObject({ source: 'default', layout: { dimension: '320x1200' } });
  });

  it("reads the product's name, price, call to action and brand colours from its row, dropping a colour that is not #rrggbb", () => {
    expect(creativeContentOf(ROW, 'SKU-1')).toEqual({
      name: 'Organic oat milk',
      price: '$2.49',
      callToAction: 'Buy now',
      imageUrl: null,
      brandColor: '#203040',
      brandTextColor: null,
    });
    expect(creativeContentOf({ brandColor: 'red', title: 'x\u0007y' }, 'SKU-2')).toMatchObject({ name: 'x y', brandColor: null });
    expect(creativeContentOf(null, 'SKU-3').name).toBe('SKU-3');
  });
});

describe(renderFrame.name, () => {
  let frame: Frame;
  beforeAll(async () => {
    frame = await renderFrame(chooseLayout([LAYOUT_300x250], '300x250', 2).layout, creativeContentOf(ROW, 'SKU-1'), await productImage());
  });

  it.each(['png', 'jpg', 'tiff'] as const)('encodes a %s that decodes to the placement size times the resolution, and is not blank', async (format) => {
    const file = await encodeStill(frame, format);
    const meta = await sharp(file).metadata();
    expect(meta).toMatchObject({ format: format === 'jpg' ? 'jpeg' : format, width: 600, height: 500 });
    await expectNotBlank(file);
  });

  it('puts the product image in its box and the brand colour behind the rest', async () => {
    const png = await encodeStill(frame, 'png');
    // Centre of the image box (20,80 280x280) is the product's green; a corner is the brand colour #203040.
    expect(await pixel(png, 160, 220)).toEqual([0, 200, 0]);
    expect(await pixel(png, 2, 498)).toEqual([0x20, 0x30, 0x40]);
  });

  it('draws a placeholder where the image is missing or cannot be decoded, and says why', async () => {
    const layout = chooseLayout([LAYOUT_300x250], '300x250', 1).layout;
    const broken = await renderFrame(layout, creativeContentOf(ROW, 'SKU-1'), Buffer.from('not an image'));
    expect(broken.imageError).toMatch(/cannot be decoded/);
    const png = await encodeStill(broken, 'png');
    expect(await pixel(png, 80, 110)).toEqual([0xd9, 0xd9, 0xd9]);
  });

  it('refuses an image beyond the pixel limit rather than decoding it', async () => {
    const huge = await sharp({ create: { width: 8000, height: 6000, channels: 3, background: '#00ff00' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const drawn = await renderFrame(chooseLayout([LAYOUT_300x250], '300x250', 1).layout, creativeContentOf(ROW, 'SKU-1'), huge);
    expect(drawn.imageError).toMatch(/pixel limit|exceeds/i);
  });

  it('encodes frames as an animated gif with one page per frame', async () => {
    const second = await renderFrame(chooseLayout([LAYOUT_300x250], '300x250', 2).layout, creativeContentOf({ ...ROW, brandColor: '#aa0000' }, 'SKU-2'), null);
    const gif = await encodeGif([frame, second], 1000);
    const meta = await sharp(gif, { animated: true }).metadata();
    expect(meta).toMatchObject({ format: 'gif', width: 600, pages: 2, pageHeight: 500, loop: 0 });
    expect(meta.delay).toEqual([1000, 1000]);
    await expectNotBlank(gif);
  });

  it('encodes frames as an H.264 mp4 that ffprobe reads back with the size and duration', async () => {
    const second = await renderFrame(chooseLayout([LAYOUT_300x250], '300x250', 2).layout, creativeContentOf(ROW, 'SKU-2'), null);
    const mp4 = await encodeMp4([frame, second]);
    const dir = mkdtempSync(join(tmpdir(), 'mp4-spec-'));
    try {
      writeFileSync(join(dir, 'v.mp4'), mp4);
      const probe = JSON.parse(
        execFileSync(ffprobe.path, [
          '-v',
          'error',
          '-show_entries',
          'stream=codec_name,width,height,pix_fmt:format=duration',
          '-of',
          'json',
          join(dir, 'v.mp4'),
        ]).toString(),
      ) as { streams: { codec_name: string; width: number; height: number; pix_fmt: string }[]; format: { duration: string } };
      expect(probe.streams[0]).toMatchObject({ codec_name: 'h264', width: 600, height: 500, pix_fmt: 'yuv420p' });
      expect(Number(probe.format.duration)).toBeCloseTo(2 * VIDEO_SECONDS_PER_FRAME, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe(warmUpRenderer.name, () => {
  it('draws and encodes a creative of the default layout, so a worker pays the text renderer set-up at start', async () => {
    await expect(warmUpRenderer()).resolves.toBeUndefined();
  });
});
