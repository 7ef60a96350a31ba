import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { feedDecompressedTooLarge, feedNotAFeed } from './feed-errors';

/** Compressed bytes pushed at a time: at most about 8 MiB inflated waits to be handed on. */
const PUSH_SLICE_BYTES = 8 * 1024;

/** Entries a zip tool adds beside the files it was given: folders and macOS's resource forks. */
const isToolEntry = (name: string) => name.endsWith('/') || name.startsWith('__MACOSX/') || /(^|\/)\._[^/]*$/.test(name);

/**
 * The one file of a zipped feed (a `.zip` export), read from its local header on and decompressed as
 * the archive streams in (fflate's streaming Unzip: no spooling, constant memory, data descriptors and
 * zip64 read), held to the same byte cap as any feed. Folders and macOS resource forks are passed over;
 * an archive of no file, of more than one, or whose data does not decompress is not a feed.
 */
export async function* unzipped(archive: AsyncIterable<Buffer>, { maxBytes, where }: { maxBytes: number; where: string }): AsyncGenerator<Buffer> {
  const out: Buffer[] = [];
  let feedFile: string | undefined;
  let failure: Error | undefined;
  let total = 0;
  const fail = (error: Error) => (failure ??= error);

  const unzip = new Unzip((file: UnzipFile) => {
    if (isToolEntry(file.name)) return; // not started: its data is passed over
    if (feedFile !== undefined) {
      fail(
        feedNotAFeed(
          `The zip archive at ${where} holds more than one file (${JSON.stringify(feedFile)}, ${JSON.stringify(file.name)}, ...): zip the feed file alone.`,
        ),
      );
      return;
    }
    feedFile = file.name;
    file.ondata = (error, data) => {
      if (error) return fail(feedNotAFeed(`The zip archive at ${where} does not decompress: ${error.message}.`));
      total += data.length;
      if (total > maxBytes) return fail(feedDecompressedTooLarge(where, maxBytes));
      out.push(Buffer.from(data.buffer, data.byteOffset, data.length));
    };
    try {
      file.start();
    } catch {
      // fflate has no decoder for the entry's method (its ondata has said so already, which wins).
      fail(feedNotAFeed(`The zip archive at ${where} stores its file with a compression method other than deflate.`));
    }
  });
  unzip.register(UnzipInflate);

  // fflate reports some broken archives (one cut short) by throwing from push rather than through ondata.
  const push = (chunk: Buffer, final: boolean) => {
    try {
      unzip.push(chunk, final);
    } catch (error) {
      fail(feedNotAFeed(`The zip archive at ${where} does not decompress: ${(error as Error).message}.`));
    }
    if (failure) throw failure;
  };
  // In slices, so that what one slice inflates to (deflate's ratio is at most about 1,032) is handed
  // on before the next is pushed; one chunk behind, so that the last is pushed as final.
  function* pushSliced(chunk: Buffer, final: boolean): Generator<Buffer> {
    for (let at = 0; at < chunk.length || at === 0; at += PUSH_SLICE_BYTES) {
      push(chunk.subarray(at, at + PUSH_SLICE_BYTES), final && at + PUSH_SLICE_BYTES >= chunk.length);
      yield* out.splice(0);
    }
  }
  let pending: Buffer | undefined;
  for await (const chunk of archive) {
    if (pending) yield* pushSliced(pending, false);
    pending = chunk;
  }
  yield* pushSliced(pending ?? Buffer.alloc(0), true);
  if (feedFile === undefined) throw feedNotAFeed(`The zip archive at ${where} holds no file.`);
}
