import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPENSSL, requireTool } from '@platform/testing';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestServer {
  port: number;
  /** e.g. http://127.0.0.1:43210 */
  origin: string;
  /** Every request that reached the server: a refused fetch must leave this empty. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, recorded: RecordedRequest) => void;

/** A real HTTP(S) server on 127.0.0.1, port chosen by the OS; the only peer tests ever talk to. */
export async function startTestServer(handler: Handler, tlsCredentials?: { key: string; cert: string }): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() };
      requests.push(recorded);
      handler(request, response, recorded);
    });
  };
  const server = tlsCredentials ? https.createServer(tlsCredentials, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `${tlsCredentials ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Servers that never answer keep their sockets open; close would otherwise wait forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound once by the OS, then released. */
export async function unusedLoopbackPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A throw-away self-signed certificate for 127.0.0.1, made with the openssl CLI (Node cannot
 * issue certificates). Generated per run so no private key is ever committed.
 */
export function selfSignedCertificateFor127(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'outbound-fetch-tls-'));
  try {
    execFileSync(
      requireTool(OPENSSL),
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
