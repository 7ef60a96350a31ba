import { minioClientOptions } from './minio-client.factory';

const keys = { accessKey: 'ak', secretKey: 'sk' };

describe(minioClientOptions.name, () => {
  it('splits a local http endpoint and addresses buckets by path', () => {
    expect(minioClientOptions({ endpoint: 'http://127.0.0.1:9000', ...keys })).toEqual({
      endPoint: '127.0.0.1',
      port: 9000,
      useSSL: false,
      accessKey: 'ak',
      secretKey: 'sk',
      region: 'us-east-1',
      pathStyle: true,
    });
  });

  it('defaults the port from the scheme and lets AWS use virtual-host addressing', () => {
    const options = minioClientOptions({ endpoint: 'https://s3.eu-west-1.amazonaws.com', region: 'eu-west-1', ...keys });
    expect(options).toMatchObject({ endPoint: 's3.eu-west-1.amazonaws.com', port: 443, useSSL: true, region: 'eu-west-1', pathStyle: false });
  });

  it('unwraps IPv6 literals', () => {
    expect(minioClientOptions({ endpoint: 'http://[::1]:9000', ...keys })).toMatchObject({ endPoint: '::1', port: 9000 });
  });

  it.each(['not a url', 'ftp://host', 'http://host:9000/bucket', 'http://user:pw@host'])('refuses %j', (endpoint) => {
    expect(() => minioClientOptions({ endpoint, ...keys })).toThrow(/S3 endpoint/);
  });
});
