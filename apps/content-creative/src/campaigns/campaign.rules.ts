import {
  CAMPAIGN_ASSET_MAP_MAX,
  CAMPAIGN_CREATIVE_MASTERS_MAX,
  CAMPAIGN_DECISION_MAP_MAX,
  CAMPAIGN_EXPRESSIONS_MAX,
  CAMPAIGN_NAME_MAX,
  CAMPAIGN_SEGMENTS_MAX,
  CAMPAIGN_TEXT_MAX,
  CAMPAIGN_URL_MAX,
  canonicalOperator,
  CONDITION_OPERATORS,
  EXPRESSION_VALUE_MAX,
  EXPRESSION_VALUES_MAX,
  RULE_PRIORITIES,
  type DataSignalValueType,
} from '@contracts/domain';
import { blankOrTooLong, notOneOf, type FieldError, type FieldErrorCode } from '@platform/errors';
import type { DataSignalIndex } from '../data-signals/data-signal.service';
import type { CampaignInput, DescribedAssetSource, Expression } from './campaign.model';

const err = (pointer: string, code: FieldErrorCode, detail: string): FieldError => ({ pointer, code, detail });

const tooMany = (pointer: string, items: readonly unknown[], max: number): FieldError[] =>
  items.length > max ? [err(pointer, 'TOO_MANY_ITEMS', `${pointer.slice(1)} may hold at most ${max} items.`)] : [];

const positiveId = (pointer: string, id: number): FieldError[] =>
  Number.isSafeInteger(id) && id > 0 ? [] : [err(pointer, 'OUT_OF_RANGE', `${pointer.slice(1)} must be a positive integer.`)];

function urlErrors(pointer: string, value: string): FieldError[] {
  if (value.length > CAMPAIGN_URL_MAX) return [err(pointer, 'TOO_LONG', `defaultURL must be at most ${CAMPAIGN_URL_MAX} characters.`)];
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return [];
  } catch {
    // reported below
  }
  return [err(pointer, 'INVALID_FORMAT', 'defaultURL must be an absolute http or https URL.')];
}

const isOfType = (value: unknown, type: DataSignalValueType) =>
  type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === 'string' && value.length <= EXPRESSION_VALUE_MAX;

/** Whether an operand fits the operator and the property's value type; undefined when it does. */
function operandProblem(operator: string, value: unknown, type: DataSignalValueType): string | undefined {
  const scalar = `a ${type}${type === 'string' ? ` of at most ${EXPRESSION_VALUE_MAX} characters` : ''}`;
  if (operator === 'IN' || operator === 'NOT_IN') {
    if (!Array.isArray(value) || value.length === 0 || value.length > EXPRESSION_VALUES_MAX || !value.every((v) => isOfType(v, type)))
      return `must be a list of 1 to ${EXPRESSION_VALUES_MAX} values, each ${scalar}`;
    return undefined;
  }
  if (operator === 'BETWEEN') {
    if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => isOfType(v, 'number')) || (value[0] as number) > (value[1] as number))
      return 'must be [low, high]: two numbers, low not above high';
    return undefined;
  }
  if ((operator === 'GREATER_THAN' || operator === 'LESS_THAN') && type !== 'number') return 'must be a number';
  return isOfType(value, type) ? undefined : `must be ${scalar}`;
}

function expressionErrors(at: string, expression: Expression, signals: DataSignalIndex): FieldError[] {
  const signal = signals.get(expression.dataSignalServiceId);
  if (!signal)
    return [err(`${at}/dataSignalServiceId`, 'UNKNOWN_DATA_SIGNAL', `Data signal ${expression.dataSignalServiceId} is not in the data-signal catalog.`)];
  const property = signal.properties.get(expression.dataSignalPropertyId);
  if (!property)
    return [
      err(
        `${at}/dataSignalPropertyId`,
        'UNKNOWN_DATA_SIGNAL_PROPERTY',
        `Data signal ${signal.record.dataSignalName} has no property ${JSON.stringify(expression.dataSignalPropertyId)}.`,
      ),
    ];
  const operator = canonicalOperator(expression.operator);
  if (!(property.operators as string[]).includes(operator))
    return [
      err(
        `${at}/operator`,
        'OPERATOR_NOT_ALLOWED',
        `${property.propertyId} allows ${property.operators.join(', ')}; got ${JSON.stringify(expression.operator)}.`,
      ),
    ];
  const problem = operandProblem(operator, expression.value, property.valueType);
  return problem ? [err(`${at}/value`, 'INVALID_VALUE', `value for ${operator} on ${property.propertyId} ${problem}.`)] : [];
}

/** Every rule a campaign must keep that needs no other service: shape, bounds and the data-signal catalog. */
export function campaignErrors(input: CampaignInput, signals: DataSignalIndex): FieldError[] {
  const errors: FieldError[] = [
    ...blankOrTooLong('/campaignName', input.campaignName, CAMPAIGN_NAME_MAX),
    ...urlErrors('/defaultURL', input.defaultURL),
    ...tooMany('/assetMap', input.assetMap, CAMPAIGN_ASSET_MAP_MAX),
    ...tooMany('/decisionMap', input.decisionMap, CAMPAIGN_DECISION_MAP_MAX),
    ...blankOrTooLong('/ad/adId', input.ad.adId, CAMPAIGN_TEXT_MAX),
    ...(input.ad.title === undefined ? [] : blankOrTooLong('/ad/title', input.ad.title, CAMPAIGN_TEXT_MAX)),
  ];
  input.assetMap.slice(0, CAMPAIGN_ASSET_MAP_MAX).forEach((entry, i) => {
    const at = `/assetMap/${i}`;
    errors.push(
      ...blankOrTooLong(`${at}/assetId`, entry.assetId, CAMPAIGN_TEXT_MAX),
      ...positiveId(`${at}/assetSourceId`, entry.assetSourceId),
      ...blankOrTooLong(`${at}/assetSourceColumn`, entry.assetSourceColumn, CAMPAIGN_TEXT_MAX),
    );
  });
  input.decisionMap.slice(0, CAMPAIGN_DECISION_MAP_MAX).forEach((entry, i) => {
    const at = `/decisionMap/${i}`;
    errors.push(...positiveId(`${at}/assetSourceId`, entry.assetSourceId));
    const signal = signals.get(entry.dataSignalService);
    if (!signal)
      errors.push(err(`${at}/dataSignalService`, 'UNKNOWN_DATA_SIGNAL', `Data signal ${entry.dataSignalService} is not in the data-signal catalog.`));
    else if (!signal.properties.has(entry.dataSignalProperty))
      errors.push(
        err(
          `${at}/dataSignalProperty`,
          'UNKNOWN_DATA_SIGNAL_PROPERTY',
          `Data signal ${signal.record.dataSignalName} has no property ${JSON.stringify(entry.dataSignalProperty)}.`,
        ),
      );
  });

  const graph = input.decisionGraph;
  errors.push(...notOneOf('/decisionGraph/rulePriority', graph.rulePriority ?? undefined, RULE_PRIORITIES));
  errors.push(...tooMany('/decisionGraph/segments', graph.segments, CAMPAIGN_SEGMENTS_MAX));
  if (graph.defaultCreativeMaster !== null)
    errors.push(...blankOrTooLong('/decisionGraph/defaultCreativeMaster', graph.defaultCreativeMaster, CAMPAIGN_TEXT_MAX));
  else if (graph.segments.length > 0)
    errors.push(
      err('/decisionGraph/defaultCreativeMaster', 'REQUIRED', 'defaultCreativeMaster is required when the graph has segments: it serves when none matches.'),
    );
  const names = new Set<string>();
  graph.segments.slice(0, CAMPAIGN_SEGMENTS_MAX).forEach((segment, s) => {
    const at = `/decisionGraph/segments/${s}`;
    errors.push(...blankOrTooLong(`${at}/name`, segment.name, CAMPAIGN_TEXT_MAX));
    if (names.has(segment.name.trim())) errors.push(err(`${at}/name`, 'DUPLICATE', `Segment name ${JSON.stringify(segment.name)} is used twice.`));
    names.add(segment.name.trim());
    if (segment.creativeMasters.length === 0)
      errors.push(err(`${at}/creativeMasters`, 'REQUIRED', 'creativeMasters must name at least one creative master to serve when the segment matches.'));
    errors.push(...tooMany(`${at}/creativeMasters`, segment.creativeMasters, CAMPAIGN_CREATIVE_MASTERS_MAX));
    segment.creativeMasters
      .slice(0, CAMPAIGN_CREATIVE_MASTERS_MAX)
      .forEach((master, m) => errors.push(...blankOrTooLong(`${at}/creativeMasters/${m}`, master, CAMPAIGN_TEXT_MAX)));
    errors.push(...notOneOf(`${at}/condition/operator`, segment.condition.operator, CONDITION_OPERATORS));
    const expressions = segment.condition.expressions;
    if (expressions.length === 0) errors.push(err(`${at}/condition/expressions`, 'REQUIRED', 'A segment condition needs at least one expression.'));
    errors.push(...tooMany(`${at}/condition/expressions`, expressions, CAMPAIGN_EXPRESSIONS_MAX));
    expressions
      .slice(0, CAMPAIGN_EXPRESSIONS_MAX)
      .forEach((expression, e) => errors.push(...expressionErrors(`${at}/condition/expressions/${e}`, expression, signals)));
  });
  return errors;
}

/** The asset sources a campaign names, once each, for one question to asset-sources. */
export function namedAssetSources(input: CampaignInput): number[] {
  return [...new Set([...input.assetMap, ...input.decisionMap].map((entry) => entry.assetSourceId))].filter((id) => Number.isSafeInteger(id) && id > 0);
}

/** Every asset-map and decision-map entry must name a source of the account; asset-map columns must be columns of it. */
export function assetReferenceErrors(input: CampaignInput, described: readonly DescribedAssetSource[]): FieldError[] {
  const sources = new Map(described.map((source) => [source.assetSourceId, new Set(source.columnNames)]));
  const missing = (pointer: string, id: number) => err(pointer, 'UNKNOWN_ASSET_SOURCE', `Asset source ${id} does not exist in this account.`);
  const errors: FieldError[] = [];
  input.assetMap.forEach((entry, i) => {
    const columns = sources.get(entry.assetSourceId);
    if (!columns) errors.push(missing(`/assetMap/${i}/assetSourceId`, entry.assetSourceId));
    else if (!columns.has(entry.assetSourceColumn))
      errors.push(
        err(
          `/assetMap/${i}/assetSourceColumn`,
          'UNKNOWN_COLUMN',
          `Asset source ${entry.assetSourceId} has no column ${JSON.stringify(entry.assetSourceColumn)}.`,
        ),
      );
  });
  input.decisionMap.forEach((entry, i) => {
    if (!sources.has(entry.assetSourceId)) errors.push(missing(`/decisionMap/${i}/assetSourceId`, entry.assetSourceId));
  });
  return errors;
}
