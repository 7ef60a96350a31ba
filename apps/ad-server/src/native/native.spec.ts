import type { ServingItem } from '@contracts/domain';
import { buildNativeResponse, nativeContentOf, wrapNativeLegacy, type NativeAdInput, type NativeRequest, type NativeResponse } from './native';

/** The response, failing the test when there is none. */
function built(...args: Parameters<typeof buildNativeResponse>): NativeResponse {
  const r = buildNativeResponse(...args);
  if (r === null) throw new Error('expected a native response, got no ad');
  return r;
}

const ad = (overrides: Partial<NativeAdInput> = {}): NativeAdInput => ({
  title: 'Trail Running Shoe',
  image: { url: 'https://cdn.example/exports/12/SKU-1.png', w: 1200, h: 627 },
  sponsoredBy: 'Acme Sports',
  price: '€89.99',
  ctaText: 'Shop now',
  clickUrl: 'https://ads.example/serve/v1/click?plc=12&id=srv-1',
  impressionUrls: ['https://ads.example/serve/v1/event?e=impression&plc=12&id=srv-1'],
  clickTrackerUrls: [],
  trackers: {
    bannerImpressionTrackers: ['https://imp.example/i?ord=[CACHEBUSTING]'],
    bannerImpressionInTagScriptTrackers: ['https://js.example/tag.js', '<script src="https://js.example/x.js"></script>'],
    primaryClickTracker: ['https://c.example/click?cb=${CACHEBUSTER}'],
    secondaryClickTrackers: ['https://c2.example/click'],
    inStreamImpressionTrackers: ['https://video.example/never-in-native'],
  },
  cacheBuster: '12345678',
  ...overrides,
});

describe('buildNativeResponse without a request', () => {
  const res = buildNativeResponse(ad());

  it('is a 1.2 response object with the spec field names', () => {
    expect(res).toEqual({
      ver: '1.2',
      assets: [
        { id: 1, title: { text: 'Trail Running Shoe' } },
        { id: 2, img: { type: 3, url: 'https://cdn.example/exports/12/SKU-1.png', w: 1200, h: 627 } },
        { id: 3, data: { type: 1, value: 'Acme Sports' } },
        { id: 4, data: { type: 6, value: '€89.99' } },
        { id: 5, data: { type: 12, value: 'Shop now' } },
      ],
      link: {
        url: 'https://ads.example/serve/v1/click?plc=12&id=srv-1',
        clicktrackers: ['https://c.example/click?cb=12345678', 'https://c2.example/click'],
      },
      eventtrackers: [
        { event: 1, method: 1, url: 'https://ads.example/serve/v1/event?e=impression&plc=12&id=srv-1' },
        { event: 1, method: 1, url: 'https://imp.example/i?ord=12345678' },
        { event: 1, method: 2, url: 'https://js.example/tag.js' },
      ],
    });
  });

  it('serialises to the exact JSON keys of the spec', () => {
    const json = JSON.parse(JSON.stringify(res));
    expect(Object.keys(json).sort()).toEqual(['assets', 'eventtrackers', 'link', 'ver']);
    expect(Object.keys(json.link).sort()).toEqual(['clicktrackers', 'url']);
    expect(json).not.toHaveProperty('imptrackers');
    expect(JSON.stringify(res)).not.toContain('never-in-native');
  });

  it('leaves out assets with no content and click trackers when there are none', () => {
    const r = built(ad({ price: null, ctaText: '  ', image: null, trackers: {} }));
    expect(r.assets.map((a) => a.id)).toEqual([1, 3]);
    expect(r.link).toEqual({ url: 'https://ads.example/serve/v1/click?plc=12&id=srv-1' });
    expect(r.eventtrackers).toHaveLength(1);
  });

  it('adds a description asset (data type 2) when given', () => {
    const r = built(ad({ description: 'Light and grippy' }));
    expect(r.assets).toContainEqual({ id: 6, data: { type: 2, value: 'Light and grippy' } });
  });

  it('lists impressions in legacy imptrackers on request', () => {
    const r = built(ad(), { legacyImpTrackers: true });
    expect(r.imptrackers).toEqual(['https://ads.example/serve/v1/event?e=impression&plc=12&id=srv-1', 'https://imp.example/i?ord=12345678']);
  });

  it('draws one cache buster per response when none is given', () => {
    const r = built(ad({ cacheBuster: undefined }));
    const cb = /ord=(\d+)/.exec(r.eventtrackers[1].url)?.[1];
    expect(cb).toMatch(/^\d{8}$/);
    expect(r.link.clicktrackers?.[0]).toBe(`https://c.example/click?cb=${cb}`);
  });

  it('wraps in the pre-1.1 form', () => {
    expect(wrapNativeLegacy(built(ad()))).toEqual({ native: res });
  });
});

describe('buildNativeResponse with a native request', () => {
  const request: NativeRequest = {
    ver: '1.2',
    assets: [
      { id: 101, required: 1, title: { len: 10 } },
      { id: 102, required: 1, img: { type: 3, wmin: 300, hmin: 157 } },
      { id: 103, data: { type: 12, len: 4 } },
      { id: 104, data: { type: 6 } },
      { id: 105, img: { type: 1, w: 50, h: 50 } },
      { id: 106, data: { type: 3 } },
      { id: 107, video: { mimes: ['video/mp4'] } },
    ],
  };

  it('answers the requested asset ids, truncating to len and skipping what it cannot fill', () => {
    const r = built(ad(), { request });
    expect(r.assets).toEqual([
      { id: 101, required: 1, title: { text: 'Trail Runn' } },
      { id: 102, required: 1, img: { type: 3, url: 'https://cdn.example/exports/12/SKU-1.png', w: 1200, h: 627 } },
      { id: 103, data: { type: 12, value: 'Shop' } },
      { id: 104, data: { type: 6, value: '€89.99' } },
    ]);
  });

  it('answers no ad when a required asset cannot be filled', () => {
    expect(buildNativeResponse(ad({ image: null }), { request })).toBeNull();
    expect(buildNativeResponse(ad(), { request: { assets: [{ id: 1, required: 1, data: { type: 3 } }] } })).toBeNull();
  });

  it('truncates by characters, not UTF-16 units', () => {
    const r = built(ad({ title: '😀😀😀😀' }), { request: { assets: [{ id: 1, title: { len: 2 } }] } });
    expect(r.assets[0].title?.text).toBe('😀😀');
  });
});

describe('nativeContentOf', () => {
  const item: ServingItem = {
    contentValue: 'SKU-1',
    name: 'Trail Running Shoe',
    imageUrl: 'https://feed.example/sku-1.jpg',
    price: '89.99',
    landingUrl: 'https://shop.example/sku-1',
    callToAction: 'Shop now',
    exports: { png: { path: 'exports/12/SKU-1.png', width: 1200, height: 627 } },
  };

  it('prefers the png export with its size', () => {
    expect(nativeContentOf(item, { width: 300, height: 250 }, (file) => `https://cdn.example/${file.path}`)).toEqual({
      title: 'Trail Running Shoe',
      image: { url: 'https://cdn.example/exports/12/SKU-1.png', w: 1200, h: 627 },
      price: '89.99',
      ctaText: 'Shop now',
    });
  });

  it('falls back to the item image with the placement size, or none', () => {
    expect(nativeContentOf({ ...item, exports: {} }, { width: 300, height: 250 }, (file) => file.path).image).toEqual({
      url: 'https://feed.example/sku-1.jpg',
      w: 300,
      h: 250,
    });
    expect(nativeContentOf({ ...item, exports: {}, imageUrl: null }, { width: 300, height: 250 }, (file) => file.path).image).toBeNull();
  });
});
