import type { ProblemCode } from './index';

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
  INVALID_UNICODE: 'A string holds a lone UTF-16 surrogate, which is not Unicode text',
  DUPLICATE: 'The value repeats one given earlier in the same request where each must be unique',
  NOT_AN_OBJECT: 'The item is not a JSON object',
  // Asset sources: the columns a request names.
  UNKNOWN_COLUMN: 'The name is not a column of the asset source',
  MISSING_COLUMN: 'A column the rule needs is not among the asset source columns',
  NOT_NUMERIC: 'The value is not a number where a numeric column needs one',
  UNKNOWN_ASSET_SOURCE: 'The asset source named is not one of the account',
  // Channels and tags: references into the ad-server catalog and the org's settings.
  UNKNOWN_AD_SERVER: 'The ad server is not in the ad-server catalog',
  AD_SERVER_MISMATCH: 'The ad server is not the one the media channel uses',
  DIMENSION_NOT_WHITELISTED: "The dimension is not in the org's dimension whitelist",
  INVALID_VALUE: 'The value is not one the operator accepts',
  // Dynamic campaigns and content maps: references into the data-signal catalog, the campaign and its sources.
  UNKNOWN_DATA_SIGNAL: 'The data signal is not in the data-signal catalog',
  UNKNOWN_DATA_SIGNAL_PROPERTY: 'The property is not one of the data signal',
  OPERATOR_NOT_ALLOWED: "The operator does not apply to the property's type",
  MUST_BE_EMPTY: 'The field must be empty given another field of the request',
  CONTENT_TYPE_NOT_ALLOWED: 'The content type does not apply here',
  AD_GROUP_NOT_IN_CAMPAIGN: 'The ad group is not one of the campaign',
  PLACEMENT_NOT_IN_MEDIA_PLAN: 'The placement is not one of the media plan',
  NOT_IN_ASSET_SOURCE: 'The value is not a key, variant or group of the asset source',
  // Tags: macros and third-party scripts.
  MACRO_SYNTAX: 'The value is not a macro of the ad server',
  NOT_SUPPORTED: 'The ad server does not support what the field asks for',
  FOREIGN_MACRO: 'The script uses a macro of another ad server',
  CONSENT_MACRO_WITHOUT_VENDOR: 'A consent macro does not name a numeric vendor id',
  CLICK_MACRO_ESCAPING: 'A click macro expands to an unescaped URL inside a query',
  INSECURE_URL: 'secureTags asks for https and the value loads an http:// URL',
  // The admin API: references to the org's own accounts and the permission catalog.
  UNKNOWN_ORG: 'The organization does not exist',
  UNKNOWN_ACCOUNT: 'The account is not one of the organization',
  UNKNOWN_PERMISSION: 'The permission is not in the permission catalog',
  INVALID_BUCKET: 'The bucket name is not a valid S3 bucket name',
  // Uploads and the asset library: the path and file-name rules 1 to 7, each its own code.
  INVALID_MULTIPART: 'The multipart body is malformed or lacks a required part',
  TOO_MANY_PARTS: 'The multipart body holds more parts than allowed',
  INVALID_KEY: 'The path is not a valid object-storage key',
  PATH_NULL_BYTE: 'Rule 1: the path holds a null byte',
  PATH_CONTROL_CHARACTER: 'Rule 1: the path holds an ASCII control character',
  PATH_DISALLOWED_CHARACTER: 'Rule 2: the path holds DEL, a C1 control or a Latin-1 supplement character',
  PATH_TRAVERSAL: 'Rule 3: the path holds ".." or "./"',
  PATH_ABSOLUTE: 'Rule 4: the path starts with "/"',
  PATH_DOUBLE_SLASH: 'Rule 5: the path holds "//"',
  PATH_TOO_LONG: 'Rule 6: the path is longer than its maximum',
  FILE_NAME_MISSING: 'Rule 7: a file name is required',
  EXTENSION_NOT_ALLOWED: 'Rule 7: the file name does not end in an allowed extension',
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

/** What `errors[].code` of a problem may be: a field rule, or a domain rule's own catalog code about that one field. */
export type FieldErrorCode = FieldRuleCode | ProblemCode;
