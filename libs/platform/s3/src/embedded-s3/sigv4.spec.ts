import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { presignSignatureV4, signV4 } from 'minio/dist/main/signing.js';
import { verifySignatureV4, type SignedRequest } from './sigv4';

// Requests are signed by minio's own signer, so the verifier is checked against the client we use.
const credentials = { accessKey: 'local-key', secretKey: 'local-secret' };
const signedAt = new Date('2024-05-06T07:08:09Z');
const host = '127.0.0.1:9000';

function signedRequest(method: string, path: string, { secretKey = credentials.secretKey, accessKey = credentials.accessKey } = {}): SignedRequest {
  const payloadHash = createHash('sha256').update('').digest('hex');
  const headers: Record<string, string> = {
    host,
    'x-amz-date': '20240506T070809Z',
    'x-amz-content-sha256': payloadHash,
    'content-md5': 'abc==',
  };
  const unsigned = { protocol: 'http:', method, path, headers: { ...headers } };
  headers.authorization = signV4(unsigned, accessKey, secretKey, 'us-east-1', signedAt, payloadHash);
  return { method, url: path, headers: headers as IncomingHttpHeaders };
}

function presignedRequest(path: string, expiresSeconds: number): SignedRequest {
  const unsigned = { protocol: 'http:', method: 'GET', path, headers: { host } };
  const { accessKey, secretKey } = credentials;
  const url = new URL(presignSignatureV4(unsigned, accessKey, secretKey, undefined, 'us-east-1', signedAt, expiresSeconds));
  return { method: 'GET', url: url.pathname + url.search, headers: { host } };
}

describe(verifySignatureV4.name, () => {
  const now = new Date(signedAt.getTime() + 60_000);

  it.each([
    ['GET', '/bucket?delimiter=%2F&encoding-type=url&list-type=2&max-keys=3&prefix=accounts%2F7%2F&start-after=accounts%2F7%2Fa%2Bb%20c.png'],
    ['PUT', '/bucket/accounts/7/photo%20%281%29%21.png'],
    ['PUT', '/bucket/accounts/7/big.bin?partNumber=2&uploadId=abc'],
    ['HEAD', '/bucket'],
  ])('accepts a %s request signed by minio: %s', (method, path) => {
    expect(verifySignatureV4(signedRequest(method, path), credentials, now)).toEqual({ kind: 'verified', via: 'header' });
  });

  it('rejects a wrong secret key', () => {
    const outcome = verifySignatureV4(signedRequest('GET', '/bucket/key', { secretKey: 'guess' }), credentials, now);
    expect(outcome).toMatchObject({ kind: 'rejected', status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('rejects an unknown access key', () => {
    const outcome = verifySignatureV4(signedRequest('GET', '/bucket/key', { accessKey: 'S3RVER' }), credentials, now);
    expect(outcome).toMatchObject({ kind: 'rejected', status: 403, code: 'InvalidAccessKeyId' });
  });

  it('rejects a request whose path or signed headers were changed after signing', () => {
    const request = signedRequest('GET', '/bucket/accounts/7/a.png');
    expect(verifySignatureV4({ ...request, url: '/bucket/accounts/8/a.png' }, credentials, now)).toMatchObject({ code: 'SignatureDoesNotMatch' });
    const otherHeader = { ...request, headers: { ...request.headers, 'content-md5': 'other==' } };
    expect(verifySignatureV4(otherHeader, credentials, now)).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('rejects a request signed more than 15 minutes away from the server clock', () => {
    const late = new Date(signedAt.getTime() + 16 * 60_000);
    expect(verifySignatureV4(signedRequest('GET', '/bucket/key'), credentials, late)).toMatchObject({ code: 'RequestTimeTooSkewed' });
  });

  it('accepts a presigned URL until it expires, and not after', () => {
    const request = presignedRequest('/bucket/accounts/7/a%20b.png', 300);
    expect(verifySignatureV4(request, credentials, now)).toEqual({ kind: 'verified', via: 'query' });
    expect(verifySignatureV4(request, credentials, new Date(signedAt.getTime() + 301_000))).toMatchObject({ code: 'AccessDenied' });
    const tampered = { ...request, url: request.url.replace('/7/', '/8/') };
    expect(verifySignatureV4(tampered, credentials, now)).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('reports unsigned requests as anonymous and refuses signature version 2', () => {
    expect(verifySignatureV4({ method: 'GET', url: '/bucket/key', headers: { host } }, credentials, now)).toEqual({ kind: 'anonymous' });
    const v2 = { method: 'GET', url: '/bucket/key', headers: { host, authorization: 'AWS local-key:c2lnbmF0dXJl' } };
    expect(verifySignatureV4(v2, credentials, now)).toMatchObject({ kind: 'rejected', status: 400, code: 'InvalidArgument' });
  });
});
