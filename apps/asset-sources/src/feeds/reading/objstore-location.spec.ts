import type { FeedLocation } from '../feed-reading';
import { objectLocationOf } from './objstore-transport';

const at = (url: string, urlConfig: FeedLocation['urlConfig'] = {}): FeedLocation => ({ accountId: 1, urlType: 'objstore', url, urlConfig });

describe('the object an objstore url names, and where its requests are signed for', () => {
  it.each([
    ['s3:// on AWS S3, region by default', at('s3://feeds/exports/p.csv'), 'https://s3.us-east-1.amazonaws.com', 'us-east-1', 'feeds', 'exports/p.csv'],
    ['s3:// on AWS S3 in a region given', at('s3://feeds/p.csv', { region: 'eu-west-3' }), 'https://s3.eu-west-3.amazonaws.com', 'eu-west-3', 'feeds', 'p.csv'],
    [
      's3:// on an S3-compatible endpoint',
      at('s3://feeds/p.csv', { endpoint: 'http://minio.example.com:9000' }),
      'http://minio.example.com:9000',
      'us-east-1',
      'feeds',
      'p.csv',
    ],
    ['a path-style URL on any server', at('http://minio.example.com:9000/feeds/a%20b.csv'), 'http://minio.example.com:9000', 'us-east-1', 'feeds', 'a b.csv'],
    [
      'an AWS path-style URL: the region from its host',
      at('https://s3.ap-southeast-2.amazonaws.com/feeds/p.xml'),
      'https://s3.ap-southeast-2.amazonaws.com',
      'ap-southeast-2',
      'feeds',
      'p.xml',
    ],
    [
      'an AWS virtual-hosted URL: the bucket from its host',
      at('https://my.feeds.s3.eu-central-1.amazonaws.com/daily/p.csv'),
      'https://s3.eu-central-1.amazonaws.com',
      'eu-central-1',
      'my.feeds',
      'daily/p.csv',
    ],
    [
      'an AWS legacy dash-region host',
      at('https://s3-eu-west-1.amazonaws.com/feeds/p.csv'),
      'https://s3-eu-west-1.amazonaws.com',
      'eu-west-1',
      'feeds',
      'p.csv',
    ],
    [
      'a region given wins over the host',
      at('https://feeds.s3.amazonaws.com/p.csv', { region: 'us-west-2' }),
      'https://s3.us-west-2.amazonaws.com',
      'us-west-2',
      'feeds',
      'p.csv',
    ],
  ])('%s', (_case, location, endpoint, region, bucket, key) => {
    expect(objectLocationOf(location)).toEqual({ endpoint, region, bucket, key });
  });

  it.each([
    ['no key', at('s3://feeds/')],
    ['no key on a virtual-hosted URL', at('https://feeds.s3.eu-west-1.amazonaws.com/')],
    ['no bucket and key', at('http://minio.example.com:9000/')],
    ['another scheme', at('ftp://feeds.example.com/p.csv')],
  ])('refuses %s', (_case, location) => {
    expect(() => objectLocationOf(location)).toThrow(expect.objectContaining({ code: 'FEED_REFUSED' }));
  });
});
