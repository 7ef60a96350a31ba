import type { FeedLocation } from '../feed-reading';
import { objectLocationOf } from './objstore-transport';

/** A feed's location as stored or as read (an asset-library file's id null or absent when there is none). */
type CredentialLocation = Pick<FeedLocation, 'urlType' | 'url' | 'urlConfig'> & { fileId?: string | null };

/**
 * Where a feed's credentials are sent: its urlType and the server it logs in to (host and port; for
 * objstore the S3 endpoint the request is signed for and the bucket: a cloud endpoint such as
 * s3.<region>.amazonaws.com serves every customer's buckets, so there the bucket is the server).
 * Undefined for an asset-library file, which takes no credentials, and for a URL that does not parse.
 *
 * An update keeps stored credentials only while this stays the same: whoever may edit a source must
 * not be able to point it at a server of their own and have the stored password sent there.
 */
export function credentialDestination(location: CredentialLocation): string | undefined {
  if (location.fileId) return undefined;
  try {
    if (location.urlType === 'objstore') {
      const { endpoint, bucket } = objectLocationOf(location);
      return `objstore ${endpoint} bucket ${bucket}`;
    }
    const url = new URL(location.url);
    if (location.urlType === 'sftp') return `sftp ${url.hostname}:${location.urlConfig.portNumber ?? (url.port || 22)}`;
    // URL drops a scheme's default port, so http://host and http://host:80 are one destination.
    return `${location.urlType} ${url.host}`;
  } catch {
    return undefined;
  }
}

/** Whether stored credentials may go with the new location. */
export function sameCredentialDestination(stored: CredentialLocation, next: CredentialLocation): boolean {
  const before = credentialDestination(stored);
  return before !== undefined && before === credentialDestination(next);
}
