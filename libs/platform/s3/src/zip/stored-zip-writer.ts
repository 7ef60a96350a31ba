import { PassThrough, type Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  CENTRAL_HEADER_SIGNATURE,
  CENTRAL_HEADER_SIZE,
  END_OF_CENTRAL_DIRECTORY_SIGNATURE,
  END_OF_CENTRAL_DIRECTORY_SIZE,
  LOCAL_HEADER_SIGNATURE,
  LOCAL_HEADER_SIZE,
  MAX_ZIP32_ENTRIES,
  MAX_ZIP32_OFFSET,
  METHOD_STORED,
  UTF8_NAME_FLAG,
  VERSION,
  type StoredZipEntry,
} from './zip-format';

/** Unix (3) made the entries, version 2.0; regular files with mode 0644. */
const MADE_BY = (3 << 8) | VERSION;
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;

interface Written extends StoredZipEntry {
  headerOffset: number;
  crc: number;
  name: string;
  nameBytes: Buffer;
}

/** MS-DOS date and time words of a moment (local fields, as zip tools read them), clamped to 1980. */
function dosDateTime(at: Date): { date: number; time: number } {
  if (Number.isNaN(at.getTime())) return { date: (1 << 5) | 1, time: 0 };
  const year = Math.max(at.getFullYear(), 1980);
  return {
    date: ((year - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | (at.getSeconds() >> 1),
  };
}

/**
 * Writes a zip as a stream, one entry at a time, every entry stored uncompressed with its size and CRC in
 * its local header. Each `add` answers where the entry's bytes are in the zip, so a reader can later fetch
 * one file with a single range read (`readStoredZipEntry`) while the zip stays one object. `output` is
 * read on demand (`add` waits while the reader is behind), so the zip is never held whole. No zip64: an
 * archive that would pass 4 GiB or 65,535 entries is refused.
 */
export class StoredZipWriter {
  readonly output: Readable;
  private readonly stream: PassThrough;
  private readonly entries: Written[] = [];
  private readonly names = new Set<string>();
  private cursor = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private ended = false;
  private readonly stamp: { date: number; time: number };

  /**
   * `bufferBytes` (default 1 MiB): how far the zip may run ahead of its reader before `add` waits, so a
   * caller adding small files does not wait on every one for the reader to catch up.
   */
  constructor(options: { modified?: Date; bufferBytes?: number } = {}) {
    this.stream = new PassThrough({ highWaterMark: options.bufferBytes ?? 1024 * 1024 });
    this.output = this.stream;
    // The reader of `output` gets an abort's error; this keeps it from also being an uncaught 'error' event.
    this.stream.on('error', () => undefined);
    this.stamp = dosDateTime(options.modified ?? new Date());
  }

  /** Appends a file; resolves with where its bytes are once they are written. Calls may overlap: entries go in call order. */
  add(name: string, bytes: Buffer): Promise<StoredZipEntry> {
    return this.serially(async () => {
      if (this.ended) throw new Error('the zip has ended');
      if (name === '' || name.startsWith('/') || name.includes('\\')) throw new Error(`invalid zip entry name: ${name}`);
      if (this.names.has(name)) throw new Error(`duplicate zip entry: ${name}`);
      if (this.entries.length >= MAX_ZIP32_ENTRIES) throw new RangeError(`a zip holds at most ${MAX_ZIP32_ENTRIES} entries`);
      const nameBytes = Buffer.from(name, 'utf8');
      const headerOffset = this.cursor;
      const offset = headerOffset + LOCAL_HEADER_SIZE + nameBytes.length;
      if (offset + bytes.length > MAX_ZIP32_OFFSET) throw new RangeError('the zip would pass 4 GiB');
      const entry: Written = { name, nameBytes, headerOffset, offset, bytes: bytes.length, crc: crc32(bytes) };
      const header = Buffer.alloc(LOCAL_HEADER_SIZE);
      header.writeUInt32LE(LOCAL_HEADER_SIGNATURE, 0);
      this.writeEntryFields(header, 4, entry);
      header.writeUInt16LE(0, 28);
      this.names.add(name);
      this.entries.push(entry);
      await this.write(Buffer.concat([header, nameBytes]));
      await this.write(bytes);
      return { name, offset, bytes: bytes.length };
    });
  }

  /**
   * The fields a local header (at 4) and its central directory header (at 6) share, in the same order: version
   * needed, flags, method, time, date, CRC-32, compressed and uncompressed size (equal: stored), name length.
   */
  private writeEntryFields(header: Buffer, at: number, entry: Written): void {
    header.writeUInt16LE(VERSION, at);
    header.writeUInt16LE(UTF8_NAME_FLAG, at + 2);
    header.writeUInt16LE(METHOD_STORED, at + 4);
    header.writeUInt16LE(this.stamp.time, at + 6);
    header.writeUInt16LE(this.stamp.date, at + 8);
    header.writeUInt32LE(entry.crc, at + 10);
    header.writeUInt32LE(entry.bytes, at + 14);
    header.writeUInt32LE(entry.bytes, at + 18);
    header.writeUInt16LE(entry.nameBytes.length, at + 22);
  }

  /** Writes the central directory and ends `output`. */
  end(): Promise<void> {
    return this.serially(async () => {
      if (this.ended) return;
      this.ended = true;
      const start = this.cursor;
      const central = this.entries.map((entry) => {
        const header = Buffer.alloc(CENTRAL_HEADER_SIZE);
        header.writeUInt32LE(CENTRAL_HEADER_SIGNATURE, 0);
        header.writeUInt16LE(MADE_BY, 4);
        this.writeEntryFields(header, 6, entry);
        // extra field length, comment length, disk number start, internal attributes: 0
        header.writeUInt32LE(FILE_ATTRIBUTES, 38);
        header.writeUInt32LE(entry.headerOffset, 42);
        return Buffer.concat([header, entry.nameBytes]);
      });
      const directory = Buffer.concat(central);
      if (start + directory.length > MAX_ZIP32_OFFSET) throw new RangeError('the zip would pass 4 GiB');
      const eocd = Buffer.alloc(END_OF_CENTRAL_DIRECTORY_SIZE);
      eocd.writeUInt32LE(END_OF_CENTRAL_DIRECTORY_SIGNATURE, 0);
      eocd.writeUInt16LE(this.entries.length, 8);
      eocd.writeUInt16LE(this.entries.length, 10);
      eocd.writeUInt32LE(directory.length, 12);
      eocd.writeUInt32LE(start, 16);
      await this.write(directory);
      await this.write(eocd);
      this.stream.end();
    });
  }

  /** Fails the output (its reader sees the error) and refuses further entries. */
  abort(error: Error): void {
    this.ended = true;
    this.stream.destroy(error);
  }

  private serially<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(chunk: Buffer): Promise<void> {
    if (this.stream.destroyed) throw new Error('the zip output was closed');
    this.cursor += chunk.length;
    if (this.stream.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        this.stream.off('drain', onDrain);
        this.stream.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(new Error('the zip output was closed'));
      this.stream.on('drain', onDrain);
      this.stream.on('close', onClose);
    });
  }
}
