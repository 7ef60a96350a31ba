import { finished, pipeline, type Readable } from 'node:stream';
import { createByteLimit } from './byte-limit';
import { onAbort, type Deadline } from './deadline';
import { isOutboundFetchError } from './errors';

/**
 * A fetched body as the caller reads it: behind the byte cap (`tooLarge`), with the deadline armed
 * until it has been read (a server trickling bytes must not outlive the budget) and its idle clock
 * fed by each chunk. A failure of the source reaches the reader as `describeError(error)`, not a bare
 * ECONNRESET; the clock stops when the body ends either way.
 */
export function guardedBody(
  source: Readable,
  { maxBytes, tooLarge, describeError, deadline }: { maxBytes: number; tooLarge: () => Error; describeError: (error: Error) => Error; deadline: Deadline },
): Readable {
  const body = createByteLimit(maxBytes, tooLarge, () => deadline.progressed());
  // Bytes waiting in our buffer wait for our reader: the host is not idle then.
  deadline.heldBy(() => body.readableLength > 0);
  // Registered before pipeline's own handler so the reader sees our error code.
  source.once('error', (error) => body.destroy(isOutboundFetchError(error) ? error : describeError(error)));
  // pipeline tears the source down with the body; its callback has nothing left to do.
  pipeline(source, body, () => undefined);
  // A caller that reads only the status and abandons the body must not crash the process when the
  // deadline later destroys it with an error; callers that listen (for await, pipeline) still see it.
  body.on('error', () => undefined);
  const stopListening = onAbort(deadline.signal, (reason) => body.destroy(reason));
  finished(body, () => {
    stopListening();
    deadline.dispose();
  });
  return body;
}
