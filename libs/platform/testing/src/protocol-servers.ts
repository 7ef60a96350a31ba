import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FtpSrv } from 'ftp-srv';
import { Server as SshServer, utils as sshUtils, type Connection, type ParsedKey } from 'ssh2';

/** A real HTTP server on 127.0.0.1 for feed specs (a retailer's feed host), answering what `route` says per request; it records each request. */
export interface FeedHttpServer {
  origin: string;
  hostPort: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

export async function startFeedHttpServer(route: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<FeedHttpServer> {
  const requests: FeedHttpServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A host on 127.0.0.1 that takes connections and never says a word: an FTP or SFTP server that never greets, an HTTP server that never answers. */
export async function startSilentTcpServer(): Promise<{ hostPort: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Answers a CSV feed that never ends on its own: `header`, then 200 rows of `row(n)` every 20 ms until
 * the reader closes the connection (a run to cancel, stop or supersede mid-read). `onClose` runs then.
 */
export function writeEndlessCsv(res: ServerResponse, header: string, row: (n: number) => string, onClose?: () => void): void {
  res.writeHead(200, { 'content-type': 'text/csv' });
  res.write(header);
  let next = 0;
  const timer = setInterval(() => res.write(Array.from({ length: 200 }, () => row(next++)).join('')), 20);
  res.on('close', () => {
    clearInterval(timer);
    onClose?.();
  });
}

/** An FTP server on 127.0.0.1 (ftp-srv) serving `files` to one user; `pasvHost` is the address its PASV replies name. */
export interface FeedFtpServer {
  port: number;
  hostPort: string;
  close(): Promise<void>;
}

export async function startFeedFtpServer(options: {
  files: Record<string, string | Buffer>;
  user: string;
  password: string;
  pasvHost?: string;
}): Promise<FeedFtpServer> {
  const root = mkdtempSync(join(tmpdir(), 'feed-ftp-'));
  for (const [path, body] of Object.entries(options.files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), body);
  }
  const port = await freePort();
  const server = new FtpSrv({
    url: `ftp://127.0.0.1:${port}`,
    // ftp-srv takes a function too (its typings say string only): the address named in every PASV reply.
    pasv_url: (() => options.pasvHost ?? '127.0.0.1') as unknown as string,
    pasv_min: 30_000,
    pasv_max: 40_000,
    anonymous: false,
    greeting: 'feed test server',
    log: silentLogger() as never,
  });
  server.on('login', ({ username, password }: { username: string; password: string }, resolve: (r: { root: string }) => void, reject: (e: Error) => void) => {
    if (username === options.user && password === options.password) resolve({ root });
    else reject(new Error('Invalid username or password'));
  });
  await server.listen();
  return {
    port,
    hostPort: `127.0.0.1:${port}`,
    close: async () => {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** An SFTP server on 127.0.0.1 (ssh2's Server) serving in-memory `files` to one user, by password or by public key. */
export interface FeedSftpServer {
  port: number;
  hostPort: string;
  /** Its host key's fingerprint as OpenSSH prints it (SHA256:...). */
  hostKeyFingerprint: string;
  /** Authentication requests it has received (a client that refused the host key sends none). */
  authentications(): number;
  close(): Promise<void>;
}

export async function startFeedSftpServer(options: {
  files: Record<string, string | Buffer>;
  user: string;
  password?: string;
  publicKey?: string;
  /** Default a free one; a test that swaps the server's key listens again on the same port. */
  port?: number;
}): Promise<FeedSftpServer> {
  const hostKey = sshKeyPair().private;
  const hostPublic = sshUtils.parseKey(hostKey) as ParsedKey;
  let authentications = 0;
  const allowedKey = options.publicKey ? sshUtils.parseKey(options.publicKey) : undefined;
  const connections = new Set<Connection>();
  const server = new SshServer({ hostKeys: [hostKey] }, (client) => {
    connections.add(client);
    client.on('close', () => connections.delete(client));
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      authentications++;
      if (ctx.username !== options.user) return ctx.reject();
      if (ctx.method === 'password' && options.password && ctx.password === options.password) return ctx.accept();
      if (ctx.method === 'publickey' && allowedKey && !(allowedKey instanceof Error)) {
        const key = ctx.key;
        if (key.algo !== allowedKey.type || !key.data.equals(allowedKey.getPublicSSH())) return ctx.reject();
        if (!ctx.signature) return ctx.accept();
        if (ctx.blob && allowedKey.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true) return ctx.accept();
      }
      ctx.reject(['password', 'publickey']);
    });
    client.on('ready', () => {
      client.on('session', (accept) => {
        accept().on('sftp', (acceptSftp) => serveFiles(acceptSftp(), options.files));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hostPort: `127.0.0.1:${port}`,
    hostKeyFingerprint: `SHA256:${createHash('sha256').update(hostPublic.getPublicSSH()).digest('base64').replace(/=+$/, '')}`,
    authentications: () => authentications,
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of connections) connection.end();
        server.close(() => resolve());
      }),
  };
}

type Sftp = import('ssh2').SFTPWrapper;

/** Just enough of SFTP to stat, open, read and close a file. */
function serveFiles(sftp: Sftp, files: Record<string, string | Buffer>): void {
  const STATUS = sshUtils.sftp.STATUS_CODE;
  const handles = new Map<number, Buffer>();
  let nextHandle = 1;
  const attrsOf = (body: Buffer) => ({ mode: 0o100644, uid: 0, gid: 0, size: body.length, atime: 1_764_000_000, mtime: 1_764_000_000 });
  const fileAt = (path: string) => {
    const body = files[path.replace(/^\//, '')];
    return body === undefined ? undefined : Buffer.from(body);
  };
  sftp.on('REALPATH', (id, path) => sftp.name(id, [{ filename: path, longname: path, attrs: attrsOf(Buffer.alloc(0)) }]));
  const stat = (id: number, path: string) => {
    const body = fileAt(path);
    if (!body) return sftp.status(id, STATUS.NO_SUCH_FILE);
    sftp.attrs(id, attrsOf(body));
  };
  sftp.on('STAT', stat);
  sftp.on('LSTAT', stat);
  sftp.on('OPEN', (id, path) => {
    const body = fileAt(path);
    if (!body) return sftp.status(id, STATUS.NO_SUCH_FILE);
    const handle = nextHandle++;
    handles.set(handle, body);
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32BE(handle);
    sftp.handle(id, buffer);
  });
  sftp.on('FSTAT', (id, handle) => {
    const body = handles.get(handle.readUInt32BE());
    if (!body) return sftp.status(id, STATUS.FAILURE);
    sftp.attrs(id, attrsOf(body));
  });
  sftp.on('READ', (id, handle, offset, length) => {
    const body = handles.get(handle.readUInt32BE());
    if (!body) return sftp.status(id, STATUS.FAILURE);
    if (offset >= body.length) return sftp.status(id, STATUS.EOF);
    sftp.data(id, body.subarray(offset, Math.min(body.length, offset + length)));
  });
  sftp.on('CLOSE', (id, handle) => {
    handles.delete(handle.readUInt32BE());
    sftp.status(id, STATUS.OK);
  });
}

/**
 * An ed25519 key pair that ssh2 reads back. Its generator writes, about once in 200 keys, a private
 * key its own parser then refuses ("Malformed OpenSSH private key"): such a pair is drawn again.
 */
export function sshKeyPair(): { private: string; public: string } {
  for (let attempt = 0; attempt < 20; attempt++) {
    const pair = sshUtils.generateKeyPairSync('ed25519');
    let parsed: unknown;
    try {
      parsed = sshUtils.parseKey(pair.private);
    } catch (error) {
      parsed = error;
    }
    if (!(parsed instanceof Error)) return pair;
  }
  throw new Error('ssh2 generated no key pair it could read back in 20 attempts');
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function silentLogger() {
  const logger = { info: () => undefined, debug: () => undefined, trace: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
  return logger;
}
