import type { FeedLocation } from '../feed-reading';
import { credentialDestination, sameCredentialDestination } from './feed-destination';

const at = (urlType: FeedLocation['urlType'], url: string, urlConfig: FeedLocation['urlConfig'] = {}): FeedLocation => ({
  accountId: 1,
  urlType,
  url,
  urlConfig,
});

describe('where stored credentials go', () => {
  it.each([
    ['a path or query only', at('https', 'https://feeds.example.com/a.csv'), at('https', 'https://feeds.example.com/b.csv?day=2')],
    ["a scheme's default port written out", at('http', 'http://feeds.example.com/a.csv'), at('http', 'http://feeds.example.com:80/a.csv')],
    [
      'sftp: the port in urlConfig or in the URL',
      at('sftp', 'sftp://h.example.com/a.csv', { portNumber: 2222 }),
      at('sftp', 'sftp://h.example.com:2222/b.csv'),
    ],
    ['objstore: another key in the same bucket', at('objstore', 's3://bucket/a.csv'), at('objstore', 's3://bucket/b.csv')],
    [
      'objstore: the same bucket by s3:// and by its AWS URL',
      at('objstore', 's3://bucket/a.csv', { region: 'eu-west-1' }),
      at('objstore', 'https://bucket.s3.eu-west-1.amazonaws.com/b.csv'),
    ],
  ])('stay with %s', (_case, stored, next) => {
    expect(sameCredentialDestination(stored, next)).toBe(true);
  });

  it.each([
    ['another host', at('https', 'https://feeds.example.com/a.csv'), at('https', 'https://evil.example.net/a.csv')],
    ['another port', at('ftp', 'ftp://feeds.example.com/a.csv'), at('ftp', 'ftp://feeds.example.com:2121/a.csv')],
    ['another urlType', at('http', 'http://feeds.example.com/a.csv'), at('https', 'https://feeds.example.com/a.csv')],
    ['sftp: another port in urlConfig', at('sftp', 'sftp://h.example.com/a.csv'), at('sftp', 'sftp://h.example.com/a.csv', { portNumber: 2200 })],
    ['objstore: another endpoint', at('objstore', 's3://bucket/a.csv'), at('objstore', 'http://minio.example.com:9000/bucket/a.csv')],
    // AWS's endpoint serves every customer's buckets: keys that read one bucket must not sign reads of another's.
    ['objstore: another bucket on AWS', at('objstore', 's3://victim-feeds/a.csv'), at('objstore', 's3://someone-elses-bucket/a.csv')],
    [
      'objstore: another bucket by its AWS URL',
      at('objstore', 'https://victim-feeds.s3.us-east-1.amazonaws.com/a.csv'),
      at('objstore', 'https://other.s3.us-east-1.amazonaws.com/a.csv'),
    ],
    [
      'objstore: another bucket on the same server',
      at('objstore', 'http://minio.example.com:9000/one/a.csv'),
      at('objstore', 'http://minio.example.com:9000/two/a.csv'),
    ],
    ['a URL that does not parse', at('https', 'https://feeds.example.com/a.csv'), at('https', 'not a url')],
    ['an asset-library file', at('https', 'https://feeds.example.com/a.csv'), { ...at('https', ''), fileId: 'f1' }],
  ])('do not go to %s', (_case, stored, next) => {
    expect(sameCredentialDestination(stored, next)).toBe(false);
  });

  it('names the server, never the path or the credentials', () => {
    expect(credentialDestination(at('https', 'https://feeds.example.com/private/a.csv?token=x'))).toBe('https feeds.example.com');
  });
});
