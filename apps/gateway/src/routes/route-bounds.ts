import type { TSchema } from '@sinclair/typebox';
import { INT32_MAX, INT32_MIN, INT64_SAFE_MAX, INT64_SAFE_MIN } from '@contracts/domain';

/** The range each proto integer type allows; an integer schema names its type in `format`. */
const INTEGER_RANGES: Record<string, [number, number]> = { int32: [INT32_MIN, INT32_MAX], int64: [INT64_SAFE_MIN, INT64_SAFE_MAX] };

type Schema = TSchema & Record<string, unknown>;

/**
 * Lists every field of a request schema that lacks the bounds the contract requires: integers
 * need a proto format and a range inside it, strings a maxLength (or an enum), arrays a maxItems,
 * free-form objects a depth and a size cap. Empty means the schema is fully bounded.
 */
export function unboundedFields(schema: TSchema, path = ''): string[] {
  const s = schema as Schema;
  const here = path || '/';
  const problems: string[] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const member of (s[key] as Schema[] | undefined) ?? []) problems.push(...unboundedFields(member, path));
  }
  if (Array.isArray(s.enum) || s.const !== undefined) return problems;
  // A value of several types (an id as an integer or a digit string) needs the bounds of each.
  if (Array.isArray(s.type)) {
    for (const type of s.type as string[]) problems.push(...unboundedFields({ ...s, type } as TSchema, path));
    return problems;
  }
  switch (s.type) {
    case 'integer':
    case 'number': {
      const range = INTEGER_RANGES[String(s.format)];
      if (s.type === 'number' || !range) problems.push(`${here}: integer without a proto format (int32 or int64)`);
      else if (typeof s.minimum !== 'number' || typeof s.maximum !== 'number') problems.push(`${here}: integer without minimum and maximum`);
      else if (s.minimum < range[0] || s.maximum > range[1]) problems.push(`${here}: range ${s.minimum}..${s.maximum} exceeds ${String(s.format)}`);
      break;
    }
    case 'string':
      if (typeof s.maxLength !== 'number') problems.push(`${here}: string without maxLength`);
      break;
    case 'array':
      if (typeof s.maxItems !== 'number') problems.push(`${here}: array without maxItems`);
      if (s.items) problems.push(...unboundedFields(s.items as TSchema, `${path}/items`));
      break;
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, TSchema>;
      for (const [name, property] of Object.entries(properties)) problems.push(...unboundedFields(property, `${path}/${name}`));
      if (s.additionalProperties !== false && (typeof s['x-maxDepth'] !== 'number' || typeof s['x-maxBytes'] !== 'number')) {
        problems.push(`${here}: object open to any property without x-maxDepth and x-maxBytes`);
      }
      break;
    }
    case 'boolean':
    case 'null':
      break;
    default:
      if (!s.anyOf && !s.oneOf && !s.allOf) problems.push(`${here}: schema without a type`);
  }
  return problems;
}
