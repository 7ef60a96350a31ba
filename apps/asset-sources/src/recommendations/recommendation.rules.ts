import {
  RECOMMENDATION_ACCEPTED_RANGE_MAX,
  RECOMMENDATION_COOKIE_GROUP_MAX,
  RECOMMENDATION_DATA_TYPES,
  RECOMMENDATION_MAP_MAX,
  RECOMMENDATION_PRIORITY_MAX,
  RECOMMENDATION_PRIORITY_MIN,
  RECOMMENDATION_TYPES,
  RECOMMENDATION_UPDATE_FREQUENCY_MAX,
  RECOMMENDATIONS_MAX,
} from '@contracts/domain';
import { blankOrTooLong, notOneOf, type FieldError } from '@platform/errors';
import type { RecommendationConfig } from '../sources/asset-source.model';

const at = '/recommendationConfig';

const integerIn = (pointer: string, value: number | undefined, min: number, max: number, name: string): FieldError[] =>
  value !== undefined && Number.isInteger(value) && value >= min && value <= max
    ? []
    : [{ pointer, code: 'OUT_OF_RANGE', detail: `${name} must be an integer from ${min} to ${max}.` }];

/**
 * The rules of a recommendation source's settings: the type decides which members may appear
 * (cookieGroup only for collaborative and hybrid, where it is required; recommendationMap only for
 * content and hybrid, where it is required), priority only on string columns, acceptedRange only
 * on numeric ones, and every mapped column a column of the source.
 */
export function recommendationErrors(
  updateFrequency: number,
  config: RecommendationConfig,
  sourceColumns: readonly string[],
  /** Columns of the source that its update waiting to be served drops (a feed's pending columns). */
  droppedColumns: ReadonlySet<string> = new Set(),
): FieldError[] {
  const errors: FieldError[] = [
    ...integerIn('/updateFrequency', updateFrequency, 1, RECOMMENDATION_UPDATE_FREQUENCY_MAX, 'updateFrequency (hours)'),
    ...notOneOf(`${at}/type`, config.type, RECOMMENDATION_TYPES),
    ...integerIn(`${at}/maxRecommendations`, config.maxRecommendations, 1, RECOMMENDATIONS_MAX, 'maxRecommendations'),
  ];
  // Which members may appear depends on the type: with no valid type there is nothing to check them against.
  if (!(RECOMMENDATION_TYPES as readonly string[]).includes(config.type)) return errors;
  const usesEvents = config.type === 'collaborative' || config.type === 'hybrid';
  const usesMap = config.type === 'content' || config.type === 'hybrid';
  if (config.cookieGroup !== undefined && !usesEvents)
    errors.push({
      pointer: `${at}/cookieGroup`,
      code: 'NOT_ALLOWED',
      detail: `cookieGroup applies only to collaborative and hybrid recommendations, not ${config.type}.`,
    });
  else if (config.cookieGroup === undefined && usesEvents)
    errors.push({
      pointer: `${at}/cookieGroup`,
      code: 'REQUIRED',
      detail: `${config.type} recommendations need the cookieGroup their interaction events are recorded in.`,
    });
  else if (config.cookieGroup !== undefined) errors.push(...blankOrTooLong(`${at}/cookieGroup`, config.cookieGroup, RECOMMENDATION_COOKIE_GROUP_MAX));

  const map = config.recommendationMap;
  if (map !== undefined && !usesMap)
    errors.push({
      pointer: `${at}/recommendationMap`,
      code: 'NOT_ALLOWED',
      detail: `recommendationMap applies only to content and hybrid recommendations, not ${config.type}.`,
    });
  else if ((map === undefined || map.length === 0) && usesMap)
    errors.push({
      pointer: `${at}/recommendationMap`,
      code: 'REQUIRED',
      detail: `${config.type} recommendations need a recommendationMap with at least one column.`,
    });
  else if (map !== undefined && map.length > RECOMMENDATION_MAP_MAX)
    errors.push({
      pointer: `${at}/recommendationMap`,
      code: 'TOO_MANY_ITEMS',
      detail: `recommendationMap may hold at most ${RECOMMENDATION_MAP_MAX} entries.`,
    });
  else if (map !== undefined) {
    const seen = new Set<string>();
    map.forEach((entry, i) => {
      const p = `${at}/recommendationMap/${i}`;
      if (!sourceColumns.includes(entry.assetSourceColumn))
        errors.push({
          pointer: `${p}/assetSourceColumn`,
          code: 'UNKNOWN_COLUMN',
          detail: `${JSON.stringify(entry.assetSourceColumn)} is not a column of the source.`,
        });
      else if (droppedColumns.has(entry.assetSourceColumn))
        errors.push({
          pointer: `${p}/assetSourceColumn`,
          code: 'UNKNOWN_COLUMN',
          detail: `${JSON.stringify(entry.assetSourceColumn)} is dropped by the source's update waiting to be served (feed.pendingColumns).`,
        });
      else if (seen.has(entry.assetSourceColumn))
        errors.push({ pointer: `${p}/assetSourceColumn`, code: 'DUPLICATE', detail: `Column ${JSON.stringify(entry.assetSourceColumn)} is mapped twice.` });
      seen.add(entry.assetSourceColumn);
      errors.push(...notOneOf(`${p}/dataType`, entry.dataType, RECOMMENDATION_DATA_TYPES));
      if (entry.priority !== undefined && entry.dataType !== 'string')
        errors.push({ pointer: `${p}/priority`, code: 'NOT_ALLOWED', detail: 'priority applies only to columns of dataType string.' });
      else if (entry.priority !== undefined)
        errors.push(...integerIn(`${p}/priority`, entry.priority, RECOMMENDATION_PRIORITY_MIN, RECOMMENDATION_PRIORITY_MAX, 'priority'));
      if (entry.acceptedRange !== undefined && entry.dataType !== 'numeric')
        errors.push({ pointer: `${p}/acceptedRange`, code: 'NOT_ALLOWED', detail: 'acceptedRange applies only to columns of dataType numeric.' });
      else if (entry.acceptedRange !== undefined)
        errors.push(...integerIn(`${p}/acceptedRange`, entry.acceptedRange, 0, RECOMMENDATION_ACCEPTED_RANGE_MAX, 'acceptedRange'));
    });
  }
  return errors;
}
