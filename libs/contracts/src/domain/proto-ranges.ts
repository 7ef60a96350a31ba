/**
 * The ranges of the proto scalar types our requests feed. Values past them fail to serialize
 * (int32) or lose precision (int64 as a JS number, ts-proto forceLong=number), so every integer the
 * edge accepts is bounded by the field it lands in.
 */
export const INT32_MAX = 2_147_483_647;
export const INT32_MIN = -2_147_483_648;
/** int64 fields are carried as JS numbers: exact only up to 2^53 - 1. */
export const INT64_SAFE_MAX = Number.MAX_SAFE_INTEGER;
export const INT64_SAFE_MIN = Number.MIN_SAFE_INTEGER;
