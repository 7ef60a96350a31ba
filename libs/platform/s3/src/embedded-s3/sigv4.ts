import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface SignedRequest {
  method: string;
  /** Path and query exactly as received: the signature covers the encoded form. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface S3Credentials {
  accessKey: string;
  secretKey: string;
}

export type AuthOutcome =
  { kind: 'anonymous' } | { kind: 'verified'; via: 'header' | 'query' } | { kind: 'rejected'; status: 400 | 403; code: string; message: string };

const ALGORITHM = 'AWS4-HMAC-SHA256';
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
/** Query parameters that carry a presigned request's own signature, removed before the request is served. */
export const PRESIGN_PARAMETERS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
];

/**
 * Checks an AWS Signature Version 4 (Authorization header or presigned query) against one key pair,
 * as S3 and MinIO do; s3rver itself accepts any V4 signature from a key it knows.
 * The payload hash is taken as declared, not recomputed: that would mean buffering every body.
 */
export function verifySignatureV4(request: SignedRequest, credentials: S3Credentials, now = new Date()): AuthOutcome {
  const [rawPath, rawQuery = ''] = splitOnce(request.url, '?');
  const query = parseQuery(rawQuery);
  const path = canonicalPath(rawPath);
  if (!query || path === null) return rejected(400, 'InvalidURI', 'Could not parse the specified URI.');

  const authorization = headerValue(request.headers, 'authorization');
  const presigned = query.some(([name]) => name === 'X-Amz-Algorithm');
  if (authorization && presigned) {
    return rejected(400, 'InvalidArgument', 'Only one auth mechanism allowed: the X-Amz-Algorithm query parameter or the Authorization header.');
  }
  const parsed: ParsedRequest = { request, path, query, credentials, now };
  if (authorization) return verifyHeaderSignature(parsed, authorization);
  if (presigned) return verifyPresignedQuery(parsed);
  if (query.some(([name]) => name === 'Signature' || name === 'AWSAccessKeyId')) return onlyVersion4();
  return { kind: 'anonymous' };
}

interface ParsedRequest {
  request: SignedRequest;
  /** Canonical (re-encoded) path. */
  path: string;
  /** Decoded query parameters in arrival order. */
  query: [string, string][];
  credentials: S3Credentials;
  now: Date;
}

function verifyHeaderSignature(parsed: ParsedRequest, authorization: string): AuthOutcome {
  const { request, now } = parsed;
  if (!authorization.startsWith(`${ALGORITHM} `)) return onlyVersion4();
  const fields = new Map(
    authorization
      .slice(ALGORITHM.length + 1)
      .split(',')
      .map((field) => splitOnce(field.trim(), '=')),
  );
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    return rejected(400, 'AuthorizationHeaderMalformed', 'The authorization header requires Credential, SignedHeaders and Signature.');
  }
  const amzDate = headerValue(request.headers, 'x-amz-date');
  const requestTime = amzDate ? parseAmzDate(amzDate) : null;
  if (!amzDate || !requestTime) return rejected(403, 'AccessDenied', 'AWS authentication requires a valid x-amz-date header.');
  if (Math.abs(now.getTime() - requestTime.getTime()) > MAX_CLOCK_SKEW_MS) {
    return rejected(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  }
  const payloadHash = headerValue(request.headers, 'x-amz-content-sha256');
  if (!payloadHash) return rejected(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  return checkSignature(parsed, { credential, signedHeaders, signature, amzDate, payloadHash, via: 'header' });
}

function verifyPresignedQuery(parsed: ParsedRequest): AuthOutcome {
  const { query, now } = parsed;
  const param = (name: string) => query.find(([key]) => key === name)?.[1];
  if (param('X-Amz-Algorithm') !== ALGORITHM) return onlyVersion4();
  const credential = param('X-Amz-Credential');
  const amzDate = param('X-Amz-Date');
  const expires = Number(param('X-Amz-Expires'));
  const signedHeaders = param('X-Amz-SignedHeaders');
  const signature = param('X-Amz-Signature');
  const requestTime = amzDate ? parseAmzDate(amzDate) : null;
  const validExpiry = Number.isInteger(expires) && expires >= 0 && expires <= MAX_PRESIGN_SECONDS;
  if (!credential || !amzDate || !requestTime || !signedHeaders || !signature || !validExpiry) {
    return rejected(
      400,
      'AuthorizationQueryParametersError',
      'Presigned requests need valid X-Amz-Credential, X-Amz-Date, X-Amz-Expires (at most 7 days), X-Amz-SignedHeaders and X-Amz-Signature.',
    );
  }
  if (now.getTime() > requestTime.getTime() + expires * 1000) return rejected(403, 'AccessDenied', 'Request has expired');
  // The signature cannot cover itself; presigned URLs never sign the payload.
  const signed = { ...parsed, query: query.filter(([name]) => name !== 'X-Amz-Signature') };
  return checkSignature(signed, { credential, signedHeaders, signature, amzDate, payloadHash: 'UNSIGNED-PAYLOAD', via: 'query' });
}

interface SignatureCheck {
  credential: string;
  signedHeaders: string;
  signature: string;
  amzDate: string;
  payloadHash: string;
  via: 'header' | 'query';
}

function checkSignature({ request, path, query, credentials }: ParsedRequest, check: SignatureCheck): AuthOutcome {
  // Credential = <accessKey>/<yyyymmdd>/<region>/<service>/aws4_request
  const parts = check.credential.split('/');
  if (parts.length < 5 || parts[parts.length - 1] !== 'aws4_request') {
    return rejected(400, 'AuthorizationHeaderMalformed', 'The credential must look like <accessKey>/<date>/<region>/s3/aws4_request.');
  }
  const scopeParts = parts.slice(-4);
  const accessKey = parts.slice(0, -4).join('/');
  if (scopeParts[0] !== check.amzDate.slice(0, 8)) {
    return rejected(400, 'AuthorizationHeaderMalformed', 'The credential date does not match the request date.');
  }
  if (accessKey !== credentials.accessKey) {
    return rejected(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }
  const headerNames = check.signedHeaders.split(';');
  if (!headerNames.includes('host')) return rejected(400, 'AuthorizationHeaderMalformed', 'The host header must be signed.');

  const canonicalRequest = [
    request.method.toUpperCase(),
    path,
    canonicalQuery(query),
    headerNames.map((name) => `${name}:${canonicalHeaderValue(request.headers[name])}\n`).join(''),
    check.signedHeaders,
    check.payloadHash,
  ].join('\n');
  const scope = scopeParts.join('/');
  const stringToSign = [ALGORITHM, check.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const [date, region, service] = scopeParts;
  const signingKey = [date, region, service, 'aws4_request'].reduce<Buffer | string>((key, part) => hmac(key, part), `AWS4${credentials.secretKey}`);
  const expected = hmac(signingKey, stringToSign).toString('hex');

  if (!sameText(expected, check.signature)) {
    return rejected(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  }
  return { kind: 'verified', via: check.via };
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ percent-encoded. */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalPath(rawPath: string): string | null {
  try {
    return rawPath
      .split('/')
      .map((segment) => uriEncode(decodeURIComponent(segment)))
      .join('/');
  } catch {
    return null;
  }
}

function parseQuery(rawQuery: string): [string, string][] | null {
  try {
    return rawQuery
      .split('&')
      .filter((pair) => pair.length > 0)
      .map((pair) => {
        const [name, value = ''] = splitOnce(pair, '=');
        return [decodeURIComponent(name), decodeURIComponent(value)];
      });
  } catch {
    return null;
  }
}

function canonicalQuery(query: [string, string][]): string {
  return query
    .map(([name, value]) => [uriEncode(name), uriEncode(value)])
    .sort(([nameA, valueA], [nameB, valueB]) => (nameA === nameB ? compareAscii(valueA, valueB) : compareAscii(nameA, nameB)))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

function canonicalHeaderValue(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.trim().replace(/\s+/g, ' ');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseAmzDate(text: string): Date | null {
  const match = AMZ_DATE.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return Number.isNaN(date.getTime()) ? null : date;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index === -1 ? [text, undefined] : [text.slice(0, index), text.slice(index + separator.length)];
}

function compareAscii(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function sha256Hex(data: string): string {
  return createHash('sha256').update(data, 'utf8').digest('hex');
}

function onlyVersion4(): AuthOutcome {
  return rejected(400, 'InvalidArgument', `Only AWS Signature Version 4 (${ALGORITHM}) is supported.`);
}

function rejected(status: 400 | 403, code: string, message: string): AuthOutcome {
  return { kind: 'rejected', status, code, message };
}
