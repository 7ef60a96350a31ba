import {
  CONTENT_MAP_AD_GROUPS_MAX,
  CONTENT_MAP_CONTENT_MAX,
  CONTENT_MAP_PLACEMENTS_MAX,
  CONTENT_MAP_TEXT_MAX,
  CONTENT_TYPE_COLUMNS,
  CONTENT_TYPES,
  type ContentType,
} from '@contracts/domain';
import { blankOrTooLong, notOneOf, type FieldError, type FieldErrorCode } from '@platform/errors';
import type { CampaignFacts, ContentMapInput, PlanFacts } from './content-map.model';

const err = (pointer: string, code: FieldErrorCode, detail: string): FieldError => ({ pointer, code, detail });
const tooMany = (pointer: string, items: readonly unknown[], max: number): FieldError[] =>
  items.length > max ? [err(pointer, 'TOO_MANY_ITEMS', `${pointer.slice(1)} may hold at most ${max} items.`)] : [];
const optionalText = (pointer: string, value: string | undefined): FieldError[] =>
  value !== undefined && value.length > CONTENT_MAP_TEXT_MAX
    ? [err(pointer, 'TOO_LONG', `${pointer.slice(1)} must be at most ${CONTENT_MAP_TEXT_MAX} characters.`)]
    : [];
const DECIMAL_ID = /^[1-9][0-9]{0,15}$/;

export const entryPointer = (g: number) => `/adGroupPlacementCreativeMap/${g}`;
export const placementPointer = (g: number, p: number) => `${entryPointer(g)}/placementCreativeMap/${p}`;

/** The rules of the map itself, needing no other service: content type, bounds, id formats and duplicates. */
export function contentMapShapeErrors(input: ContentMapInput): FieldError[] {
  const errors: FieldError[] = [...notOneOf('/contentType', input.contentType, CONTENT_TYPES)];
  if (input.dataServiceId !== undefined && !(Number.isSafeInteger(input.dataServiceId) && input.dataServiceId > 0))
    errors.push(err('/dataServiceId', 'OUT_OF_RANGE', 'dataServiceId must be a positive integer.'));
  errors.push(...tooMany('/adGroupPlacementCreativeMap', input.adGroupPlacementCreativeMap, CONTENT_MAP_AD_GROUPS_MAX));
  const adGroups = new Set<string>();
  input.adGroupPlacementCreativeMap.slice(0, CONTENT_MAP_AD_GROUPS_MAX).forEach((entry, g) => {
    const at = entryPointer(g);
    if (entry.adGroupId !== '' && !DECIMAL_ID.test(entry.adGroupId))
      errors.push(err(`${at}/adGroupId`, 'INVALID_FORMAT', 'adGroupId must be an ad group id (a decimal integer), or empty for a campaign without ad groups.'));
    else if (adGroups.has(entry.adGroupId)) errors.push(err(`${at}/adGroupId`, 'DUPLICATE', `Ad group ${JSON.stringify(entry.adGroupId)} is mapped twice.`));
    adGroups.add(entry.adGroupId);
    errors.push(...optionalText(`${at}/adGroupName`, entry.adGroupName), ...optionalText(`${at}/status`, entry.status));
    errors.push(...tooMany(`${at}/placementCreativeMap`, entry.placementCreativeMap, CONTENT_MAP_PLACEMENTS_MAX));
    const placements = new Set<string>();
    entry.placementCreativeMap.slice(0, CONTENT_MAP_PLACEMENTS_MAX).forEach((placement, p) => {
      const pat = placementPointer(g, p);
      if (!DECIMAL_ID.test(placement.placementId))
        errors.push(err(`${pat}/placementId`, 'INVALID_FORMAT', 'placementId must be a placement id (a decimal integer).'));
      else if (placements.has(placement.placementId))
        errors.push(err(`${pat}/placementId`, 'DUPLICATE', `Placement ${placement.placementId} is mapped twice in this ad group.`));
      placements.add(placement.placementId);
      for (const field of ['externalPlacementId', 'placementName', 'dimension', 'siteId'] as const)
        errors.push(...optionalText(`${pat}/${field}`, placement[field]));
      errors.push(...tooMany(`${pat}/content`, placement.content, CONTENT_MAP_CONTENT_MAX));
      placement.content
        .slice(0, CONTENT_MAP_CONTENT_MAX)
        .forEach((value, k) => errors.push(...blankOrTooLong(`${pat}/content/${k}`, value, CONTENT_MAP_TEXT_MAX)));
      if (input.contentType === 'All' && placement.content.length > 0)
        errors.push(err(`${pat}/content`, 'MUST_BE_EMPTY', 'content must be empty when contentType is All: the placement shows every product.'));
    });
  });
  return errors;
}

/**
 * The rules against the campaign and its media plan: ad groups must be the campaign's (none for a
 * campaign without ad groups), placements the plan's, and `All` needs a non-SBT campaign whose
 * mapped placements are all served by social ad servers.
 */
export function contentMapFactErrors(input: ContentMapInput, campaign: CampaignFacts, plan: PlanFacts): FieldError[] {
  const errors: FieldError[] = [];
  if (input.contentType === 'All' && campaign.isSbt)
    errors.push(err('/contentType', 'CONTENT_TYPE_NOT_ALLOWED', 'contentType All is not allowed for an SBT campaign.'));
  const adGroups = new Set(campaign.adGroups.map((g) => String(g.adGroupId)));
  const placements = new Map(plan.placements.map((p) => [String(p.placementId), p]));
  input.adGroupPlacementCreativeMap.forEach((entry, g) => {
    if (campaign.isAdGroupCampaign && !adGroups.has(entry.adGroupId))
      errors.push(
        err(`${entryPointer(g)}/adGroupId`, 'AD_GROUP_NOT_IN_CAMPAIGN', `Ad group ${JSON.stringify(entry.adGroupId)} is not an ad group of this campaign.`),
      );
    if (!campaign.isAdGroupCampaign && entry.adGroupId !== '')
      errors.push(err(`${entryPointer(g)}/adGroupId`, 'AD_GROUP_NOT_IN_CAMPAIGN', 'This campaign has no ad groups: adGroupId must be empty.'));
    entry.placementCreativeMap.forEach((mapped, p) => {
      const placement = placements.get(mapped.placementId);
      const at = `${placementPointer(g, p)}/placementId`;
      if (!placement) errors.push(err(at, 'PLACEMENT_NOT_IN_MEDIA_PLAN', `Placement ${mapped.placementId} is not a placement of this media plan.`));
      else if (input.contentType === 'All' && placement.adServerKind !== 'social')
        errors.push(
          err(
            at,
            'CONTENT_TYPE_NOT_ALLOWED',
            `contentType All needs a social ad server; placement ${mapped.placementId} is served by a ${placement.adServerKind} ad server.`,
          ),
        );
    });
  });
  return errors;
}

/** The column content values are looked up in, or null when this content type is not looked up. */
export function lookupColumn(contentType: ContentType, source: { assetKeyColumn?: string }): string | null {
  if (contentType === 'Product') return source.assetKeyColumn || CONTENT_TYPE_COLUMNS.Product || null;
  return CONTENT_TYPE_COLUMNS[contentType] ?? null;
}

/** Every content value the source has no row for, pointed at where it was mapped and named in the detail. */
export function missingValueErrors(input: ContentMapInput, found: ReadonlySet<string>, column: string): FieldError[] {
  return input.adGroupPlacementCreativeMap.flatMap((entry, g) =>
    entry.placementCreativeMap.flatMap((placement, p) =>
      placement.content.flatMap((value, k) =>
        found.has(value)
          ? []
          : [err(`${placementPointer(g, p)}/content/${k}`, 'NOT_IN_ASSET_SOURCE', `${JSON.stringify(value)} is not a ${column} of the asset source.`)],
      ),
    ),
  );
}
