import type { AdUnitTypeEntry } from './ad-unit.model';

const IAB_DISPLAY = ['300x250', '728x90', '160x600', '300x600', '970x250', '970x90', '336x280', '468x60', '120x600', '320x50', '300x50', '320x100'];

/**
 * The ad-unit catalog seeded on every start: each type with the placement dimensions that offer it.
 * Ids are stable (tags refer to them as adUnitId, baseAdUnitId); the stored catalog converges to
 * this one, so a type or a dimension dropped here is dropped there.
 */
export const AD_UNIT_CATALOG: readonly AdUnitTypeEntry[] = [
  { adUnitTypeId: 101, group: 'in-banner', name: 'Standard Banner', dimensions: IAB_DISPLAY },
  { adUnitTypeId: 102, group: 'in-banner', name: 'Rich Media Expandable', dimensions: ['300x250', '728x90', '970x250', '300x600', '320x50'] },
  { adUnitTypeId: 103, group: 'in-banner', name: 'Carousel', dimensions: ['300x250', '300x600', '160x600', '728x90'] },
  { adUnitTypeId: 104, group: 'in-banner', name: 'In-Banner Video', dimensions: ['300x250', '300x600', '970x250', '640x360'] },
  { adUnitTypeId: 201, group: 'in-stream', name: 'Linear Video', dimensions: ['640x360', '640x480', '1280x720', '1920x1080'] },
  { adUnitTypeId: 202, group: 'in-stream', name: 'Dynamic Product Video', isDynamicPriVideo: true, dimensions: ['640x360', '1280x720', '1920x1080'] },
  { adUnitTypeId: 301, group: 'mobile', name: 'Mobile Banner', dimensions: ['320x50', '300x50', '320x100', '300x250'] },
  { adUnitTypeId: 302, group: 'mobile', name: 'Mobile Interstitial', dimensions: ['320x480', '480x320'] },
  { adUnitTypeId: 303, group: 'mobile', name: 'Mobile In-Web Video', dimensions: ['320x480', '300x250', '640x360'] },
  { adUnitTypeId: 401, group: 'native', name: 'Native In-Feed', dimensions: ['1200x627', '1080x1080', '300x250'] },
  { adUnitTypeId: 402, group: 'native', name: 'Native Product Card', dimensions: ['1200x627', '600x600', '300x250'] },
];
