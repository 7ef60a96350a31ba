import {
  assetFileNameViolation,
  FEED_ADDITIONAL_PARAMS_MAX,
  FEED_CHARACTER_ENCODINGS,
  FEED_CONTENT_TYPES,
  FEED_CREDENTIAL_MAX,
  FEED_CSV_SEPARATORS,
  FEED_CUSTOM_CODE_MAX,
  FEED_FILE_ID_MAX,
  FEED_FREQUENCIES,
  FEED_HTTP_METHODS,
  FEED_MISSING_ROW_POLICIES,
  FEED_PRIVATE_KEY_MAX,
  FEED_S3_ENDPOINT_MAX,
  FEED_S3_REGION_PATTERN,
  FEED_SSH_FINGERPRINT_PATTERN,
  FEED_URL_MAX,
  FEED_URL_TYPES,
  type FeedSecretField,
  type FeedUrlType,
} from '@contracts/domain';
import { notOneOf, type FieldError } from '@platform/errors';
import { definitionErrors } from '../sources/asset-source.rules';
import type { FeedConfig } from './feed-reading';
import { easternDate, firstFeedRun } from './feed-schedule';
import type { FeedSecrets, FeedSettings, FeedSourceInput, FeedUrlSettings } from './feed-source.model';

/** The urlConfig members each urlType takes; any other member given is refused, so a typo never passes silently. */
export const URL_CONFIG_MEMBERS: Record<FeedUrlType, readonly (keyof FeedUrlSettings | FeedSecretField)[]> = {
  http: ['additionalParams', 'httpMethod', 'username', 'password'],
  https: ['additionalParams', 'httpMethod', 'username', 'password'],
  ftp: ['username', 'password'],
  objstore: ['accessKey', 'secretKey', 'endpoint', 'region'],
  sftp: ['portNumber', 'privateKey', 'username', 'password', 'hostKeyFingerprint'],
};

/** The URL schemes each urlType reads. */
const URL_SCHEMES: Record<FeedUrlType, readonly string[]> = {
  http: ['http:'],
  https: ['https:'],
  ftp: ['ftp:'],
  sftp: ['sftp:'],
  objstore: ['s3:', 'http:', 'https:'],
};

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const YYYY_MM_DD = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day (2026-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  if (!YYYY_MM_DD.test(value)) return false;
  const [y, m, d] = value.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function locationErrors(input: FeedReadInput, secretsStored: ReadonlySet<FeedSecretField>): FieldError[] {
  const { location, secrets } = input;
  const errors = notOneOf('/urlType', location.urlType, FEED_URL_TYPES);
  if (location.fileId !== null) {
    if (location.fileId.trim() === '' || location.fileId.length > FEED_FILE_ID_MAX)
      errors.push({ pointer: '/fileId', code: 'INVALID_FORMAT', detail: `fileId must be an asset-library file of at most ${FEED_FILE_ID_MAX} characters.` });
    else {
      // Named as the library names its files (the path rules): said here, at fileId, not by the library at its own field.
      const broken = assetFileNameViolation(location.fileId);
      if (broken) errors.push({ pointer: '/fileId', code: broken.code, detail: `fileId must be the path of a file of the asset library: ${broken.detail}` });
    }
  }
  if (errors.length > 0) return errors;
  // A feed read from the asset library needs no URL; any other needs one of its urlType's scheme.
  if (location.fileId === null || location.url !== '') {
    let url: URL | undefined;
    try {
      url = new URL(location.url);
    } catch {
      url = undefined;
    }
    const schemes = URL_SCHEMES[location.urlType];
    if (!url || !schemes.includes(url.protocol) || location.url.length > FEED_URL_MAX)
      errors.push({
        pointer: '/url',
        code: location.url === '' ? 'REQUIRED' : 'INVALID_FORMAT',
        detail: `url must be an absolute ${schemes.map((s) => s.slice(0, -1)).join(' or ')} URL of at most ${FEED_URL_MAX} characters for urlType ${location.urlType}.`,
      });
    else if (url.username || url.password)
      errors.push({ pointer: '/url', code: 'INVALID_FORMAT', detail: 'url must not carry credentials; give them in urlConfig, where they are sealed.' });
  }
  const allowed = URL_CONFIG_MEMBERS[location.urlType];
  const given: Record<string, unknown> = { ...location.urlConfig, ...secrets };
  for (const [member, value] of Object.entries(given)) {
    if (value !== undefined && !allowed.includes(member as keyof FeedUrlSettings))
      errors.push({
        pointer: `/urlConfig/${member}`,
        code: 'UNKNOWN_FIELD',
        detail: `urlType ${location.urlType} takes ${allowed.join(', ')} in urlConfig, not ${member}.`,
      });
  }
  const { urlConfig } = location;
  errors.push(...notOneOf('/urlConfig/httpMethod', urlConfig.httpMethod, FEED_HTTP_METHODS));
  if ((urlConfig.additionalParams ?? '').length > FEED_ADDITIONAL_PARAMS_MAX)
    errors.push({
      pointer: '/urlConfig/additionalParams',
      code: 'TOO_LONG',
      detail: `additionalParams must be at most ${FEED_ADDITIONAL_PARAMS_MAX} characters.`,
    });
  if (urlConfig.portNumber !== undefined && (!Number.isInteger(urlConfig.portNumber) || urlConfig.portNumber < 1 || urlConfig.portNumber > 65_535))
    errors.push({ pointer: '/urlConfig/portNumber', code: 'OUT_OF_RANGE', detail: 'portNumber must be 1 to 65535.' });
  errors.push(...objectStoreErrors(location));
  const { hostKeyFingerprint } = location.urlConfig;
  if (hostKeyFingerprint !== undefined && !new RegExp(FEED_SSH_FINGERPRINT_PATTERN).test(hostKeyFingerprint))
    errors.push({
      pointer: '/urlConfig/hostKeyFingerprint',
      code: 'INVALID_FORMAT',
      detail: 'hostKeyFingerprint must be SHA256: and 43 base64 characters, as ssh-keygen -lf prints it.',
    });
  for (const [member, value] of Object.entries(secrets) as [FeedSecretField, string | undefined][]) {
    const max = member === 'privateKey' ? FEED_PRIVATE_KEY_MAX : FEED_CREDENTIAL_MAX;
    if (value !== undefined && value.length > max)
      errors.push({ pointer: `/urlConfig/${member}`, code: 'TOO_LONG', detail: `${member} must be at most ${max} characters.` });
  }
  const has = (member: FeedSecretField) => (secrets[member] !== undefined && secrets[member] !== '') || secretsStored.has(member);
  if (location.fileId === null) errors.push(...requiredCredentials(location.urlType, has));
  return errors;
}

/** objstore's endpoint is the base URL of an S3-compatible server, for an s3:// url only (an http(s) url names its server); a region is a name. */
function objectStoreErrors(location: FeedReadInput['location']): FieldError[] {
  const { endpoint, region } = location.urlConfig;
  const errors: FieldError[] = [];
  if (endpoint !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    const bare = url && (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !url.search && !url.username && !url.password;
    if (!bare || endpoint.length > FEED_S3_ENDPOINT_MAX)
      errors.push({
        pointer: '/urlConfig/endpoint',
        code: 'INVALID_FORMAT',
        detail: `endpoint must be the base URL of an S3-compatible server (http(s)://host[:port], no path or credentials), at most ${FEED_S3_ENDPOINT_MAX} characters.`,
      });
    else if (!location.url.startsWith('s3:'))
      errors.push({
        pointer: '/urlConfig/endpoint',
        code: 'NOT_ALLOWED',
        detail: 'endpoint goes with an s3://<bucket>/<key> url; an http(s) url names its server itself.',
      });
  }
  if (region !== undefined && !new RegExp(FEED_S3_REGION_PATTERN).test(region))
    errors.push({
      pointer: '/urlConfig/region',
      code: 'INVALID_FORMAT',
      detail: 'region must be a region name such as us-east-1 (lowercase letters, digits and dashes).',
    });
  return errors;
}

/** What each transport needs to log in: a pair given together, or the members it cannot work without. */
function requiredCredentials(urlType: FeedUrlType, has: (member: FeedSecretField) => boolean): FieldError[] {
  const missing = (member: FeedSecretField, why: string): FieldError => ({ pointer: `/urlConfig/${member}`, code: 'REQUIRED', detail: why });
  switch (urlType) {
    case 'http':
    case 'https':
    case 'ftp':
      // Basic auth (or an FTP login) is a pair; an anonymous feed gives neither.
      if (has('username') && !has('password')) return [missing('password', 'password is required with username.')];
      if (has('password') && !has('username')) return [missing('username', 'username is required with password.')];
      return [];
    case 'objstore':
      return (['accessKey', 'secretKey'] as const).filter((m) => !has(m)).map((m) => missing(m, `urlType objstore needs ${m}.`));
    case 'sftp': {
      const errors: FieldError[] = [];
      if (!has('username')) errors.push(missing('username', 'urlType sftp needs username.'));
      if (!has('privateKey') && !has('password')) errors.push(missing('password', 'urlType sftp needs a privateKey or a password.'));
      return errors;
    }
  }
}

/** The columns process found in the feed (csv columns, XML or JSON paths, the cdp code's output); empty when it named none. */
export function feedConfigColumns(config: FeedConfig): Set<string> {
  return new Set([
    ...Object.keys(config.csvColumns ?? {}),
    ...Object.keys(config.xpathMap ?? {}),
    ...(config.cdp ? Object.keys(config.cdpXpathMap ?? {}) : []),
  ]);
}

/** What reading a feed takes (process reads with it too): its location, credentials and format. */
export type FeedReadInput = Pick<FeedSourceInput, 'location' | 'secrets' | 'format'>;

/**
 * The rules of what reads a feed, for process (36) as for create and update: each enumeration, the
 * urlConfig members its urlType takes and needs, customCode when cdp.
 */
export function feedReadErrors(input: FeedReadInput, secretsStored: ReadonlySet<FeedSecretField> = new Set()): FieldError[] {
  const { format } = input;
  const errors = locationErrors(input, secretsStored);
  errors.push(
    ...notOneOf('/contentType', format.contentType, FEED_CONTENT_TYPES),
    ...notOneOf('/characterEncoding', format.characterEncoding, FEED_CHARACTER_ENCODINGS),
    ...notOneOf('/csvSeparator', format.csvSeparator, FEED_CSV_SEPARATORS),
  );
  if (format.cdp && (format.customCode ?? '').trim() === '')
    errors.push({ pointer: '/customCode', code: 'REQUIRED', detail: 'customCode must not be empty when cdp is true.' });
  if ((format.customCode ?? '').length > FEED_CUSTOM_CODE_MAX)
    errors.push({ pointer: '/customCode', code: 'TOO_LONG', detail: `customCode must be at most ${FEED_CUSTOM_CODE_MAX} characters.` });
  return errors;
}

/**
 * Every rule of a feed create or update: the source's own (name, columns, the key, variant, group,
 * reporting and rotation-weight columns among columnNames), each enumeration, the urlConfig members
 * its urlType takes and needs, customCode when cdp, the schedule, and, when process's config is given,
 * that every column is a column of the feed.
 */
export function feedSourceErrors(input: FeedSourceInput, secretsStored: ReadonlySet<FeedSecretField> = new Set()): FieldError[] {
  const { definition, format, schedule, policies } = input;
  const errors = [...definitionErrors({ ...definition, contentType: null }), ...feedReadErrors(input, secretsStored)];
  if (format.feedConfig) {
    const columns = feedConfigColumns(format.feedConfig);
    if (columns.size > 0)
      definition.columnNames.forEach((name, i) => {
        if (!columns.has(name))
          errors.push({
            pointer: `/columnNames/${i}`,
            code: 'UNKNOWN_COLUMN',
            detail: `${JSON.stringify(name)} is not a column of the feed (feedConfig names ${[...columns].slice(0, 20).join(', ')}).`,
          });
      });
  }
  if (schedule.isScheduled) {
    if (schedule.frequency === null)
      errors.push({ pointer: '/frequency', code: 'REQUIRED', detail: `A scheduled feed needs frequency (${FEED_FREQUENCIES.join(', ')}).` });
    else errors.push(...notOneOf('/frequency', schedule.frequency, FEED_FREQUENCIES));
    if (schedule.startTime === null) errors.push({ pointer: '/startTime', code: 'REQUIRED', detail: 'A scheduled feed needs startTime (hh:mm, US Eastern).' });
  }
  if (schedule.startTime !== null && !HH_MM.test(schedule.startTime))
    errors.push({ pointer: '/startTime', code: 'INVALID_FORMAT', detail: 'startTime must be hh:mm (00:00 to 23:59), US Eastern.' });
  if (schedule.endDate !== null && !isCalendarDate(schedule.endDate))
    errors.push({ pointer: '/endDate', code: 'INVALID_FORMAT', detail: 'endDate must be a calendar day, yyyy-mm-dd.' });
  errors.push(...notOneOf('/missingRowPolicy', policies.missingRowPolicy, FEED_MISSING_ROW_POLICIES));
  if (
    policies.shrinkGuardPercent !== undefined &&
    (!Number.isInteger(policies.shrinkGuardPercent) || policies.shrinkGuardPercent < 0 || policies.shrinkGuardPercent > 100)
  )
    errors.push({ pointer: '/shrinkGuardPercent', code: 'OUT_OF_RANGE', detail: 'shrinkGuardPercent must be 0 to 100.' });
  return errors;
}

/**
 * A schedule whose endDate leaves it no run after `now` (a day gone, or today after its last startTime)
 * would be stored and never run: refused at endDate, saying how to end a schedule instead. Only a
 * schedule whose other fields pass is looked at; their own refusals say the rest.
 */
export function scheduleWithoutRunErrors(schedule: FeedSourceInput['schedule'], now: Date): FieldError[] {
  const { isScheduled, frequency, startTime, endDate } = schedule;
  if (!isScheduled || endDate === null || !isCalendarDate(endDate) || startTime === null || !HH_MM.test(startTime)) return [];
  if (frequency === null || !(FEED_FREQUENCIES as readonly string[]).includes(frequency)) return [];
  if (firstFeedRun({ frequency, startTime, endDate }, now) !== null) return [];
  const at = frequency === 'HOURLY' ? `at minute ${startTime.slice(3)} of the hour` : `at ${startTime} US Eastern`;
  return [
    {
      pointer: '/endDate',
      code: 'OUT_OF_RANGE',
      detail:
        `The schedule has no run left: its next ${frequency} run ${at} falls after endDate ${endDate} ` +
        `(today is ${easternDate(now)} US Eastern). Give a later endDate, or isScheduled false to end the schedule.`,
    },
  ];
}

/**
 * An update without feedConfig keeps the stored one while the content type stays: the detail does not answer
 * it, so a client changing a name or a schedule sends none, and a feed whose columns only the config names
 * (a CSV without a header, an XML feed's xpathMap) would lose them. A config for another format is dropped.
 */
export function withStoredFeedConfig(input: FeedSourceInput, stored: FeedSettings): FeedSourceInput {
  if (input.format.feedConfig !== null || stored.format.contentType !== input.format.contentType) return input;
  return { ...input, format: { ...input.format, feedConfig: stored.format.feedConfig } };
}

/** The secret members given, without the empty ones (an empty member means "not given"). */
export function givenSecrets(secrets: FeedSecrets): FeedSecrets {
  return Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== undefined && v !== '')) as FeedSecrets;
}

/**
 * An update that moves a feed to another urlType or server does not take its stored credentials
 * along; a credential it then lacks is asked for again, saying why.
 */
export function withCredentialsNotCarried(errors: FieldError[], storedElsewhere: readonly FeedSecretField[]): FieldError[] {
  const stored = new Set<string>(storedElsewhere.map((member) => `/urlConfig/${member}`));
  return errors.map((error) =>
    error.code === 'REQUIRED' && 'pointer' in error && stored.has(error.pointer)
      ? { ...error, detail: `${error.detail} The stored one stays with the feed's former server: give it again for a new urlType, host or port.` }
      : error,
  );
}
