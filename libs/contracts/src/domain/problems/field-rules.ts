/**
 * The rules a field of a request can break, named in `errors[].code` of a 400: the same words for the
 * gateway's schema checks and the services' re-checks. A domain rule about one field (an asset path that
 * is not in the library) names the field with that rule's own code instead (`ASSET_NOT_FOUND`).
 */
export const FIELD_RULES = {
  REQUIRED: 'A required field is missing or blank',
  INVALID_TYPE: "The value is not of the field's type",
  INVALID_FORMAT: "The value does not have the field's format (pattern, date, URL, plain decimal integer)",
  INVALID_ENCODING: 'The value is not valid UTF-8 or percent-encoding',
  NOT_ALLOWED: "The value is not one of the field's allowed values",
  UNKNOWN_FIELD: 'The object carries a member its schema does not have',
  DUPLICATE_PARAMETER: 'A query parameter is given more than once',
  TOO_SHORT: 'The string is shorter than its minimum',
  TOO_LONG: 'The string is longer than its maximum',
  OUT_OF_RANGE: 'The number is outside its range',
  TOO_FEW_ITEMS: 'The array has fewer items than its minimum',
  TOO_MANY_ITEMS: 'The array has more items than its maximum',
  DUPLICATE_ITEMS: 'The array repeats an item it must not',
  TOO_FEW_PROPERTIES: 'The object has fewer members than its minimum',
  TOO_MANY_PROPERTIES: 'The object has more members than its maximum',
  TOO_DEEP: 'Free-form JSON nests deeper than its limit',
  TOO_LARGE: 'The value serializes to more bytes than its limit',
} as const;

export type FieldRuleCode = keyof typeof FIELD_RULES;

/** The rule each JSON Schema keyword checks, as the gateway's validator reports it. */
export const SCHEMA_KEYWORD_RULES: Readonly<Record<string, FieldRuleCode>> = {
  required: 'REQUIRED',
  type: 'INVALID_TYPE',
  enum: 'NOT_ALLOWED',
  const: 'NOT_ALLOWED',
  additionalProperties: 'UNKNOWN_FIELD',
  minLength: 'TOO_SHORT',
  maxLength: 'TOO_LONG',
  minimum: 'OUT_OF_RANGE',
  maximum: 'OUT_OF_RANGE',
  exclusiveMinimum: 'OUT_OF_RANGE',
  exclusiveMaximum: 'OUT_OF_RANGE',
  minItems: 'TOO_FEW_ITEMS',
  maxItems: 'TOO_MANY_ITEMS',
  uniqueItems: 'DUPLICATE_ITEMS',
  pattern: 'INVALID_FORMAT',
  format: 'INVALID_FORMAT',
  minProperties: 'TOO_FEW_PROPERTIES',
  maxProperties: 'TOO_MANY_PROPERTIES',
  'x-maxDepth': 'TOO_DEEP',
  'x-maxBytes': 'TOO_LARGE',
};
