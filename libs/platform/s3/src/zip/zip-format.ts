/**
 * The parts of the zip format (APPNOTE 6.3) that the stored-zip writer emits and the entry reader checks:
 * entries stored uncompressed, sizes and CRC in the local header (no data descriptor), no extra fields.
 */
export const LOCAL_HEADER_SIGNATURE = 0x04034b50;
export const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
export const END_OF_CENTRAL_DIRECTORY_SIGNATURE = 0x06054b50;
export const LOCAL_HEADER_SIZE = 30;
export const CENTRAL_HEADER_SIZE = 46;
export const END_OF_CENTRAL_DIRECTORY_SIZE = 22;
/** Version 2.0: what a stored entry with a UTF-8 name needs. */
export const VERSION = 20;
/** General purpose flag bit 11: the name is UTF-8. */
export const UTF8_NAME_FLAG = 1 << 11;
/** General purpose flag bit 3: sizes and CRC follow the data (never written here; refused when read). */
export const DATA_DESCRIPTOR_FLAG = 1 << 3;
export const METHOD_STORED = 0;
/** Without zip64, offsets and sizes are 32-bit and entries 16-bit. */
export const MAX_ZIP32_OFFSET = 0xffffffff;
export const MAX_ZIP32_ENTRIES = 0xffff;

/** Where a stored entry's bytes are in its zip: `bytes` bytes from `offset`, right after a local header naming `name`. */
export interface StoredZipEntry {
  name: string;
  offset: number;
  bytes: number;
}

/** The local header of a stored entry with no extra field: this many bytes before its data. */
export const localHeaderBytes = (name: string) => LOCAL_HEADER_SIZE + Buffer.byteLength(name, 'utf8');
