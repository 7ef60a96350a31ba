import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerMetrics } from '@platform/telemetry';
import { adDocument, click, eventPixel, explain, noscriptImage, scriptTag } from './serve-handlers';
import { queryWithoutMacros } from './ad-query';
import type { ServeAnswer, ServeContext } from './serve-context';
import { vastDocument } from './video-and-native';

/** The tag kinds' path names (the tag builder writes `video/in-banner` as `video-in-banner`). */
const DISPLAY_KINDS = new Set(['rich-media', 'video-in-banner', 'video-mobile-in-web', 'native']);

const SCRIPT = /^\/serve\/v1\/tags\/([a-z-]+)\.js$/;
const DOCUMENT = /^\/serve\/v1\/ads\/([a-z-]+)\.html$/;
const IMAGE = /^\/serve\/v1\/img\/([a-z-]+)\.png$/;

const notFound: ServeAnswer = { status: 404, contentType: 'text/plain; charset=utf-8', body: 'Not found' };

/** Which handler answers a path; undefined when none does. */
function route(ctx: ServeContext, path: string, params: URLSearchParams): ServeAnswer | Promise<ServeAnswer> | undefined {
  let match = SCRIPT.exec(path);
  if (match) return DISPLAY_KINDS.has(match[1]) ? scriptTag(ctx, match[1], params) : notFound;
  if ((match = DOCUMENT.exec(path))) return DISPLAY_KINDS.has(match[1]) ? adDocument(ctx, match[1], params) : notFound;
  if ((match = IMAGE.exec(path))) return DISPLAY_KINDS.has(match[1]) ? noscriptImage(ctx, params) : notFound;
  if (path === '/serve/v1/click') return click(ctx, params);
  if (path === '/serve/v1/event') return eventPixel(ctx, params);
  if (path === '/serve/v1/explain') return explain(ctx, params);
  if (path === '/serve/v1/vast/in-stream.xml') return vastDocument(ctx, params);
  return undefined;
}

function write(res: ServerResponse, answer: ServeAnswer): void {
  const headers: Record<string, string> = {
    'Cache-Control': 'no-store',
    // Players fetch VAST and native JSON cross-origin; nothing served depends on the caller's cookies.
    'Access-Control-Allow-Origin': '*',
    'X-Content-Type-Options': 'nosniff',
  };
  if (answer.contentType) headers['Content-Type'] = answer.contentType;
  if (answer.location) headers.Location = answer.location;
  res.writeHead(answer.status, headers).end(answer.body);
}

/**
 * The request listener: serving paths, health and metrics. Only GET (and HEAD) is answered; a
 * handler's failure answers 500 with nothing of its cause, which goes to the log.
 */
export function serveRequests(ctx: ServeContext, health: { ready(): Promise<boolean> }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url === '/healthz') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    if (req.url === '/readyz')
      return void health
        .ready()
        .then((ok) => res.writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' })));
    if (answerMetrics(req, res)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') return write(res, { status: 405, contentType: 'text/plain; charset=utf-8', body: 'Only GET is served' });
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    let answer: ServeAnswer | Promise<ServeAnswer> | undefined;
    try {
      answer = route(ctx, path, queryWithoutMacros(queryAt === -1 ? '' : target.slice(queryAt + 1))) ?? notFound;
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (!(answer instanceof Promise)) return write(res, answer);
    answer.then(
      (done) => write(res, done),
      (error: unknown) => {
        ctx.logger.error({ err: error, path }, 'serving failed');
        write(res, { status: 500, contentType: 'text/plain; charset=utf-8', body: 'Internal error' });
      },
    );
  };
}
