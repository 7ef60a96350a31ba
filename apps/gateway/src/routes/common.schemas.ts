import { TUnsafe, Type } from '@sinclair/typebox';

export const OrgId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$', description: 'Organization id' });
export const AccountId = Type.Integer({ minimum: 1, description: 'Account id' });
export const Idx = Type.Integer({ minimum: 1, description: 'Integer index' });
export const Message = Type.Object({ message: Type.String() });
export const Nullable = <T extends import('@sinclair/typebox').TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const PageLinksSchema = { next: Nullable(Type.String({ format: 'uri' })), previous: Nullable(Type.String({ format: 'uri' })) };

/** A plain JSON Schema string enum: one clear "must be one of" error instead of anyOf noise. */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
