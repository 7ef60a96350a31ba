/**
 * The URL with its userinfo, query and fragment removed. Customer URLs often carry credentials: basic
 * auth in the userinfo (https://user:password@host/feed.xml), a token or key in the query
 * (?api_key=..., a presigned object-store URL's X-Amz-Credential and X-Amz-Signature). They may be used
 * for the request but must never reach an error message, a log line or a response; the scheme, host,
 * port and path say where a request went.
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
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}
