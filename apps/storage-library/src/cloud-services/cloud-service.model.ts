export interface CloudServiceRecord {
  id: number;
  accountId: number;
  name: string;
  serviceType: string;
  bucket: string;
  /** Without slashes at either end; '' for the whole bucket. */
  prefix: string;
  /** '' for AWS S3. */
  endpoint: string;
  region: string;
  sealedCredentials: Buffer;
}

export interface CloudServiceInput {
  name: string;
  serviceType: string;
  /** <bucket>/<prefix> as the request carries it. */
  rootDir: string;
  accessKey: string;
  secretKey: string;
  endpoint: string;
  region: string;
}

/** The credentials a cloud service seals at rest. */
export interface CloudCredentials {
  accessKey: string;
  secretKey: string;
}

export const rootUrl = (record: Pick<CloudServiceRecord, 'bucket' | 'prefix'>, subPath = '') =>
  `s3://${[record.bucket, record.prefix, subPath].filter(Boolean).join('/')}`;
