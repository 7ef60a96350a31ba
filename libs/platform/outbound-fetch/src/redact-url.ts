/**
 * The URL with its userinfo removed. Customer feed URLs often carry basic-auth credentials
 * (https://user:password@host/feed.xml); they may be used for the request but must never reach
 * an error message, a log line or a response.
 */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    // Not a URL at all: we cannot tell where credentials would be, so show nothing of it.
    return '[unparseable URL]';
  }
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}
