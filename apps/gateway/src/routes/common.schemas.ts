import { TProperties, TSchema, TString, TUnsafe, Type } from '@sinclair/typebox';
import { FREE_FORM_JSON_MAX_DEPTH, INT32_MAX, INT32_MIN, INT64_SAFE_MAX, INT64_SAFE_MIN } from '@contracts/domain';
import { PLAIN_DECIMAL_PATTERN } from '../http/validation';

/**
 * Schema builders that carry the bounds every request field must have (docs/architecture.md,
 * "Validation bounds"). Routes build their schemas from these, and route-table.spec.ts walks the
 * table and fails on any integer, string, array or free-form object without its bounds.
 */

interface IntegerOptions {
  minimum?: number;
  maximum?: number;
  default?: number;
  description?: string;
}

function boundedInteger(format: 'int32' | 'int64', floor: number, ceiling: number, options: IntegerOptions) {
  const minimum = Math.max(options.minimum ?? floor, floor);
  const maximum = Math.min(options.maximum ?? ceiling, ceiling);
  return Type.Integer({ ...options, format, minimum, maximum });
}

/** An integer that lands in a proto int32 field; never wider than its range. */
export const Int32 = (options: IntegerOptions = {}) => boundedInteger('int32', INT32_MIN, INT32_MAX, options);

/** An integer that lands in a proto int64 field, carried as a JS number: exact up to 2^53 - 1. */
export const Int64 = (options: IntegerOptions = {}) => boundedInteger('int64', INT64_SAFE_MIN, INT64_SAFE_MAX, options);

/** Longest digit string an int64 identifier can take: 2^53 - 1 has 16 digits, and a sign. */
const ID_DIGITS_MAX = 17;

/**
 * An identifier the interface leaves untyped (its own convention makes such ids strings, and our
 * stores make them integers): an integer, or a string of decimal digits that spells one (no sign
 * but "-", no leading zero, no exponent, no spaces), both within the proto int64 field's range.
 * The validator turns the digit string into its number (`x-decimalString`), so handlers see one type.
 */
export const IdInt64 = (options: Omit<IntegerOptions, 'default'> = {}): TUnsafe<number> => {
  const { minimum, maximum } = boundedInteger('int64', INT64_SAFE_MIN, INT64_SAFE_MAX, options);
  return Type.Unsafe<number>({
    type: ['integer', 'string'],
    format: 'int64',
    minimum,
    maximum,
    pattern: PLAIN_DECIMAL_PATTERN,
    maxLength: ID_DIGITS_MAX,
    'x-decimalString': true,
    description: `${options.description ? `${options.description} ` : ''}An integer, or the same integer as a string of decimal digits.`,
  });
};

/** A string with a length cap (and optionally a floor and a pattern). */
export const BoundedString = (maxLength: number, options: { minLength?: number; pattern?: string; description?: string; format?: string } = {}): TString =>
  Type.String({ ...options, maxLength });

/** No C0 control character but tab, line feed and carriage return: the only ones XML 1.0 can carry, even escaped. */
const XML_CHARACTERS = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$';

/**
 * Text drawn into an image through SVG (a template's placeholder texts). A control character XML
 * cannot hold would fail the renderer after the request was taken, so it is refused here.
 */
export const DrawnText = (maxLength: number, description: string): TString =>
  BoundedString(maxLength, { pattern: XML_CHARACTERS, description: `${description}; no control characters but tab and line breaks` });

/**
 * A free-form JSON object (settings the platform stores as given). Bounded in depth and in
 * serialized size: deep nesting is how a small body exhausts a parser's or serializer's stack.
 * The `x-maxDepth` and `x-maxBytes` keywords are enforced by the gateway's validator.
 */
export const FreeFormObject = (maxBytes: number, description: string, maxDepth = FREE_FORM_JSON_MAX_DEPTH) =>
  Type.Object(
    {},
    {
      additionalProperties: true,
      'x-maxDepth': maxDepth,
      'x-maxBytes': maxBytes,
      description: `${description} Arbitrary JSON object, nested at most ${maxDepth} deep, at most ${maxBytes} bytes serialized.`,
    },
  );

/** Path parameters: closed, since only the parameters of the path can arrive. */
export const PathParams = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

export const OrgId = BoundedString(64, { minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$', description: 'Organization id' });
export const AccountId = Int64({ minimum: 1, description: 'Account id' });
export const Idx = Int64({ minimum: 1, description: 'Integer index' });
export const Message = Type.Object({ message: Type.String() });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const PageLinksSchema = { next: Nullable(Type.String({ format: 'uri' })), previous: Nullable(Type.String({ format: 'uri' })) };

/** A plain JSON Schema string enum: one clear "must be one of" error instead of anyOf noise. */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
