import type { ObjectStore } from '../object-store';
import { s3ErrorCode } from '../object-store.errors';
import {
  DATA_DESCRIPTOR_FLAG,
  LOCAL_HEADER_SIGNATURE,
  LOCAL_HEADER_SIZE,
  MAX_ZIP32_OFFSET,
  METHOD_STORED,
  localHeaderBytes,
  type StoredZipEntry,
} from './zip-format';

/**
 * One stored entry of a zip in the object store, read with a single range request: its local header and
 * its bytes. The header must be a stored entry of that name and size whose data starts at `offset` (what
 * `StoredZipWriter.add` answered); anything else answers null, so an index that does not match its zip
 * never serves other bytes. A missing zip rejects with ObjectNotFoundError.
 */
export async function readStoredZipEntry(store: ObjectStore, key: string, entry: StoredZipEntry): Promise<Buffer | null> {
  const headerBytes = localHeaderBytes(entry.name);
  const start = entry.offset - headerBytes;
  if (!Number.isSafeInteger(start) || start < 0 || !Number.isSafeInteger(entry.bytes) || entry.bytes < 0 || entry.offset + entry.bytes > MAX_ZIP32_OFFSET)
    return null;
  // A large entry's header is checked before its bytes are read, so a wrong index never costs a large read.
  const together = entry.bytes <= HEADER_FIRST_ABOVE_BYTES;
  const read = await rangeOrNull(store, key, start, together ? headerBytes + entry.bytes : headerBytes);
  if (read?.length !== (together ? headerBytes + entry.bytes : headerBytes)) return null;
  const name = Buffer.from(entry.name, 'utf8');
  const matches =
    read.readUInt32LE(0) === LOCAL_HEADER_SIGNATURE &&
    (read.readUInt16LE(6) & DATA_DESCRIPTOR_FLAG) === 0 &&
    read.readUInt16LE(8) === METHOD_STORED &&
    read.readUInt32LE(18) === entry.bytes &&
    read.readUInt32LE(22) === entry.bytes &&
    read.readUInt16LE(26) === name.length &&
    read.readUInt16LE(28) === 0 &&
    read.subarray(LOCAL_HEADER_SIZE, headerBytes).equals(name);
  if (!matches) return null;
  if (together) return read.subarray(headerBytes);
  const bytes = await rangeOrNull(store, key, entry.offset, entry.bytes);
  return bytes?.length === entry.bytes ? bytes : null;
}

/** Entries up to this size are read with their header in one request. */
const HEADER_FIRST_ABOVE_BYTES = 1024 * 1024;

async function rangeOrNull(store: ObjectStore, key: string, offset: number, length: number): Promise<Buffer | null> {
  try {
    return await store.getObjectRange(key, offset, length);
  } catch (error) {
    // A range past the end of the zip.
    if (s3ErrorCode(error) === 'InvalidRange') return null;
    throw error;
  }
}
