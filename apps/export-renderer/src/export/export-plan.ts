import { exportFileStem, type ExportAssetType } from '@contracts/domain';
import type { WorkItem } from '../peers/content-creative.peer';
import type { TemplateRendering } from '../peers/templates.peer';

/** One file of an export: a creative, or a carousel of a placement's items (gif and mp4 of a carousel template). */
export interface PlannedAsset {
  mediaPlanId: number;
  placementId: number;
  placementName: string;
  dimension: string;
  /** The items drawn, one frame each. */
  items: WorkItem[];
  fileName: string;
}

const EXTENSIONS: Record<ExportAssetType, string> = { png: 'png', jpg: 'jpg', gif: 'gif', tiff: 'tiff', mp4: 'mp4' };

/** A template whose style is a carousel animates gif and mp4 exports through a placement's items. */
export const isCarousel = (template: TemplateRendering | undefined) =>
  !!template && (template.creativeStyle.includes('Animated Carousel') || template.templateType.includes('Carousel'));

/**
 * The files an export makes: one per content item on each placement, except a gif or mp4 of a
 * carousel template, which is one per placement cycling through its items (at most `maxFrames`).
 * File names are unique within the zip and say plan, placement, content and pixel size.
 */
export function planAssets(items: readonly WorkItem[], type: ExportAssetType, resolution: number, carousel: boolean, maxFrames: number): PlannedAsset[] {
  const animated = carousel && (type === 'gif' || type === 'mp4');
  const groups: WorkItem[][] = [];
  if (animated) {
    const byPlacement = new Map<string, WorkItem[]>();
    for (const item of items) {
      const key = `${item.mediaPlanId}/${item.placementId}`;
      byPlacement.set(key, [...(byPlacement.get(key) ?? []), item]);
    }
    for (const group of byPlacement.values()) groups.push(group.slice(0, maxFrames));
  } else {
    for (const item of items) groups.push([item]);
  }
  const used = new Set<string>();
  return groups.map((group) => {
    const [first] = group;
    const content = animated ? 'carousel' : exportFileStem(first.contentValue);
    const stem = `plan-${first.mediaPlanId}_placement-${first.placementId}_${content}_${first.dimension}@${resolution}x`;
    let fileName = `${stem}.${EXTENSIONS[type]}`;
    for (let n = 2; used.has(fileName); n++) fileName = `${stem}-${n}.${EXTENSIONS[type]}`;
    used.add(fileName);
    return {
      mediaPlanId: first.mediaPlanId,
      placementId: first.placementId,
      placementName: first.placementName,
      dimension: first.dimension,
      items: group,
      fileName,
    };
  });
}
