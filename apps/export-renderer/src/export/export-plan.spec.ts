import type { WorkItem } from '../peers/content-creative.peer';
import { isCarousel, planAssets } from './export-plan';

const item = (placementId: number, contentValue: string, dimension = '300x250'): WorkItem => ({
  mediaPlanId: 3,
  placementId,
  placementName: `P${placementId}`,
  dimension,
  contentValue,
  row: null,
});

describe(planAssets.name, () => {
  const items = [item(1, 'SKU-1'), item(1, 'SKU-2'), item(2, 'SKU-1', '728x90'), item(2, 'SKU/1', '728x90')];

  it('makes one still per placement and content item, with unique names saying plan, placement, content and pixel scale', () => {
    const assets = planAssets(items, 'png', 2, true, 10);
    expect(assets.map((a) => a.fileName)).toEqual([
      'plan-3_placement-1_SKU-1_300x250@2x.png',
      'plan-3_placement-1_SKU-2_300x250@2x.png',
      'plan-3_placement-2_SKU-1_728x90@2x.png',
      'plan-3_placement-2_SKU-1_728x90@2x-2.png',
    ]);
  });

  it('makes one animated file per placement for gif and mp4 of a carousel template, at most maxFrames items', () => {
    const assets = planAssets([...items, item(1, 'SKU-3')], 'gif', 1, true, 2);
    expect(assets.map((a) => [a.fileName, a.items.map((i) => i.contentValue)])).toEqual([
      ['plan-3_placement-1_carousel_300x250@1x.gif', ['SKU-1', 'SKU-2']],
      ['plan-3_placement-2_carousel_728x90@1x.gif', ['SKU-1', 'SKU/1']],
    ]);
    expect(planAssets(items, 'mp4', 1, false, 10)).toHaveLength(4);
  });

  it('takes a template as a carousel by its style or its type', () => {
    expect(isCarousel({ creativeStyle: ['Animated Carousel'], templateType: [], layouts: [] })).toBe(true);
    expect(isCarousel({ creativeStyle: [], templateType: ['Carousel'], layouts: [] })).toBe(true);
    expect(isCarousel({ creativeStyle: ['Static Banner'], templateType: ['Standard'], layouts: [] })).toBe(false);
    expect(isCarousel(undefined)).toBe(false);
  });
});
