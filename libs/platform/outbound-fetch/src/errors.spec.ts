import { connectionFailed, dnsFailed } from './errors';

const url = new URL('https://feeds.example.com/products.csv');

/** An error as Node's TLS layer raises it: OpenSSL's own line, its code and its parts. */
const opensslError = (line: string, parts: { code?: string; reason?: string } = {}) => Object.assign(new Error(line), parts);

describe('outbound failure messages', () => {
  it('says in a sentence that a server did not answer in TLS, without OpenSSL text', () => {
    const notTls =
      'The connection to https://feeds.example.com/products.csv failed: the TLS handshake failed because the server did not answer in TLS (perhaps it serves plain http).';
    const cause = opensslError(
      '809C8489CC7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n',
      { code: 'ERR_SSL_WRONG_VERSION_NUMBER', reason: 'wrong version number' },
    );
    expect(connectionFailed(url, cause).message).toBe(notTls);
    // The same line without its code (an OpenSSL built without file names, another realm's error).
    expect(connectionFailed(url, new Error('error:0A00010B:SSL routines:ssl3_get_record:wrong version number:\n')).message).toBe(notTls);
  });

  it("keeps only the reason of any other OpenSSL error, with neither OpenSSL's source file nor its trailing colon and line break", () => {
    const alert = opensslError(
      '40C7F1E2A07F0000:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1586:SSL alert number 40\n',
      { code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', reason: 'sslv3 alert handshake failure' },
    );
    expect(connectionFailed(url, alert).message).toBe(
      'The connection to https://feeds.example.com/products.csv failed: TLS error: sslv3 alert handshake failure.',
    );
    const bare = new Error('error:0A000126:SSL routines::unexpected   eof while reading:\n');
    expect(connectionFailed(url, bare).message).toBe(
      'The connection to https://feeds.example.com/products.csv failed: TLS error: unexpected eof while reading.',
    );
  });

  it('collapses white space and drops a trailing colon or line break from any cause', () => {
    expect(connectionFailed(url, new Error('socket hang up:\n')).message).toBe(
      'The connection to https://feeds.example.com/products.csv failed: socket hang up.',
    );
    expect(dnsFailed(url, 'feeds.example.com', new Error('getaddrinfo\n  ENOTFOUND feeds.example.com')).message).toBe(
      'Could not resolve the host "feeds.example.com" of https://feeds.example.com/products.csv: getaddrinfo ENOTFOUND feeds.example.com.',
    );
    expect(connectionFailed(url, new Error('connect ECONNREFUSED 127.0.0.1:443')).message).toBe(
      'The connection to https://feeds.example.com/products.csv failed: connect ECONNREFUSED 127.0.0.1:443.',
    );
  });
});
