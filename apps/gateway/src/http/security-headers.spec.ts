import { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import { securityHeaders } from './security-headers';

/** Runs a connect-style middleware against a real response object and returns the headers it set. */
function headersOf(middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void): Record<string, unknown> {
  const req = new IncomingMessage(null as never);
  const res = new ServerResponse(req);
  res.setHeader('X-Powered-By', 'Express');
  middleware(req, res, () => undefined);
  return res.getHeaders();
}

describe(securityHeaders.name, () => {
  const options = { crossOriginResourcePolicy: { policy: 'same-site' as const } };

  it('sets exactly the headers helmet sets, and removes X-Powered-By as helmet does', () => {
    const precomputed = headersOf(securityHeaders(options) as never);
    expect(precomputed).toEqual(headersOf(helmet(options) as never));
    expect(precomputed['content-security-policy']).toEqual(expect.stringContaining("default-src 'self'"));
    expect(precomputed['cross-origin-resource-policy']).toBe('same-site');
    expect(precomputed['x-powered-by']).toBeUndefined();
  });
});
