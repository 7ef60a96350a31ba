import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { Type, type TProperties } from '@sinclair/typebox';
import {
  AD_SERVER_ID_MAX,
  ADDITIONAL_PARAMS_MAX_BYTES,
  BANNER_TYPE_MAX,
  CONSENT_MACRO_MAX,
  DATA_SIGNAL_MAP_MAX_ENTRIES,
  DATA_SIGNAL_MAX,
  DATA_SIGNAL_PATTERN,
  MACRO_NAME_MAX,
  TAGGING_TRACKERS_ACCESS,
  PLAYER_FIELD_MAX,
  PRIVACY_ENTRIES_MAX,
  PRIVACY_TYPES,
  TAG_AD_SERVER_PARAMS_MAX_BYTES,
  TAG_CSV_COLUMNS,
  TAG_CSV_PAGE_ROWS,
  TAG_TYPE_MAX,
  THIRD_PARTY_SCRIPT_MAX,
  type SingleTagKind,
} from '@contracts/domain';
import type { taggingTrackersV1 as v1 } from '@contracts/proto';
import { AccountId, BoundedString, FreeFormObject, Idx, Int32, Int64, PathParams, StringEnum } from './common.schemas';
import { defineRoute, type RouteSpec } from './route.types';

const TAG = 'tags';

// --- tag variable maps (24 to 26) -----------------------------------------------------------------

const CampaignPath = PathParams({ accountId: AccountId, campaignId: Idx });
const AdServerIdField = BoundedString(AD_SERVER_ID_MAX, { minLength: 1, description: 'An ad server of the catalog (GET /v2/ad-servers).' });

const entryFields = {
  adServerId: AdServerIdField,
  dataSignal: BoundedString(DATA_SIGNAL_MAX, { minLength: 1, pattern: DATA_SIGNAL_PATTERN, description: 'The data signal the macro carries.' }),
  macroName: BoundedString(MACRO_NAME_MAX, {
    minLength: 1,
    description:
      'A macro in the syntax of the ad server, inserted verbatim into its tags: %%PATTERN:name%% (gam), %name! (cm360), ${NAME} (xandr, dv360), ' +
      '%%TTD_NAME%% (ttd), {{NAME}} (onsite-rm), {{a.b}} (meta), {name} (pinterest), [NAME] (vistar).',
  }),
  adServerParams: Type.Optional(FreeFormObject(TAG_AD_SERVER_PARAMS_MAX_BYTES, 'Ad-server specific settings of the entry.')),
};

const TagVariableMapEntry = Type.Object({
  idx: Type.Integer(),
  adServerId: Type.String(),
  dataSignal: Type.String(),
  macroName: Type.String(),
  adServerParams: Type.Object({}, { additionalProperties: true }),
});
const SavedEntry = Type.Object({ idx: Type.Integer(), msg: Type.String() });

const presentEntry = (entry: v1.TagVariableMap) => ({
  idx: entry.idx,
  adServerId: entry.adServerId,
  dataSignal: entry.dataSignal,
  macroName: entry.macroName,
  adServerParams: JSON.parse(entry.adServerParamsJson || '{}') as Record<string, unknown>,
});

const EXAMPLE_ENTRY = { idx: 12, adServerId: 'gam', dataSignal: 'storeId', macroName: '%%PATTERN:store%%', adServerParams: { keyValue: true } };

const tagVariableMapRoutes = [
  defineRoute({
    operationId: 'listTagVariableMaps',
    method: 'get',
    path: '/v2/accounts/:accountId/campaign/:campaignId/tagVariablesMap',
    tag: TAG,
    summary: 'List the tag variable maps of a retail campaign',
    description: 'Every entry of the campaign, in idx order. campaignId is a retail campaign of the account.',
    permission: TAGGING_TRACKERS_ACCESS.listTagVariableMaps,
    scope: { account: 'accountId' },
    params: CampaignPath,
    success: { status: 200, description: 'The entries', schema: Type.Array(TagVariableMapEntry) },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND'],
    example: { params: { accountId: 1001, campaignId: 7 }, response: [EXAMPLE_ENTRY] },
    async handle({ params, backends }) {
      const result = await backends.taggingTrackers.listTagVariableMaps({ accountId: params.accountId, campaignId: params.campaignId });
      return { body: result.entries.map(presentEntry) };
    },
  }),

  defineRoute({
    operationId: 'createTagVariableMap',
    method: 'post',
    path: '/v2/accounts/:accountId/campaign/:campaignId/tagVariablesMap',
    tag: TAG,
    summary: 'Map a data signal to a macro of an ad server for a retail campaign',
    description:
      "The campaign's tags on that ad server carry the signal as ds_<dataSignal>=<macroName>. One entry per (campaign, adServerId, dataSignal), " +
      'the data signal compared case-insensitively: a second one answers 409. A campaign holds at most 200 entries (409 beyond).',
    permission: TAGGING_TRACKERS_ACCESS.createTagVariableMap,
    scope: { account: 'accountId' },
    params: CampaignPath,
    body: Type.Object(entryFields, { additionalProperties: false }),
    success: { status: 201, description: 'Created', schema: SavedEntry },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'TAG_VARIABLE_MAP_DUPLICATE', 'TAG_VARIABLE_MAPS_LIMIT'],
    example: {
      params: { accountId: 1001, campaignId: 7 },
      request: { adServerId: 'gam', dataSignal: 'storeId', macroName: '%%PATTERN:store%%', adServerParams: { keyValue: true } },
      response: { idx: 12, msg: 'Tag variable map created.' },
    },
    async handle({ params, body, backends }) {
      const result = await backends.taggingTrackers.createTagVariableMap({
        accountId: params.accountId,
        campaignId: params.campaignId,
        adServerId: body.adServerId,
        dataSignal: body.dataSignal,
        macroName: body.macroName,
        adServerParamsJson: JSON.stringify(body.adServerParams ?? {}),
      });
      return { status: 201, body: { idx: result.idx, msg: 'Tag variable map created.' } };
    },
  }),

  defineRoute({
    operationId: 'updateTagVariableMap',
    method: 'put',
    path: '/v2/accounts/:accountId/campaign/:campaignId/tagVariablesMap',
    tag: TAG,
    summary: 'Replace a tag variable map of a retail campaign, by idx',
    description: 'Every field as on create; idx names the entry (404 when the campaign holds no such entry). A duplicate answers 409.',
    permission: TAGGING_TRACKERS_ACCESS.updateTagVariableMap,
    scope: { account: 'accountId' },
    params: CampaignPath,
    body: Type.Object({ idx: Int64({ minimum: 1, description: 'The entry to update.' }), ...entryFields }, { additionalProperties: false }),
    success: { status: 200, description: 'Updated', schema: SavedEntry },
    problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'TAG_VARIABLE_MAP_NOT_FOUND', 'TAG_VARIABLE_MAP_DUPLICATE'],
    example: {
      params: { accountId: 1001, campaignId: 7 },
      request: { idx: 12, adServerId: 'xandr', dataSignal: 'storeId', macroName: '${STORE_ID}', adServerParams: {} },
      response: { idx: 12, msg: 'Tag variable map updated.' },
    },
    async handle({ params, body, backends }) {
      const result = await backends.taggingTrackers.updateTagVariableMap({
        accountId: params.accountId,
        campaignId: params.campaignId,
        idx: body.idx,
        adServerId: body.adServerId,
        dataSignal: body.dataSignal,
        macroName: body.macroName,
        adServerParamsJson: JSON.stringify(body.adServerParams ?? {}),
      });
      return { body: { idx: result.idx, msg: 'Tag variable map updated.' } };
    },
  }),
];

// --- single tags ------------------------------------------------------------------------------------

const PlacementPath = PathParams({ accountId: AccountId, mediaPlanId: Idx, placementId: Idx });

const PrivacyEntry = Type.Object(
  {
    include: Type.Boolean({ description: 'false leaves the entry out of the tag.' }),
    type: StringEnum(PRIVACY_TYPES, { description: 'GDPRv2 adds gdpr and gdpr_consent, ccpa adds us_privacy, gpp adds gpp and gpp_sid.' }),
    consentMacro: Type.Optional(
      BoundedString(CONSENT_MACRO_MAX, {
        description:
          'Required for an included GDPRv2 entry, as ${GDPR_CONSENT_<numeric vendor id>}, and for gpp, as ${GPP_STRING_<numeric id>}; none for ccpa.',
      }),
    ),
  },
  { additionalProperties: false },
);

const common = {
  campaignId: Int64({ minimum: 1, description: 'The retail campaign the media plan belongs to.' }),
  adServerId: BoundedString(AD_SERVER_ID_MAX, {
    minLength: 1,
    description: 'The ad server of the placement; decides the click and cache-buster macros and the macro syntax.',
  }),
  additionalParams: Type.Optional(
    FreeFormObject(
      ADDITIONAL_PARAMS_MAX_BYTES,
      'Extra query parameters of the tag: names of letters, digits and _, values strings (at most 256), numbers or booleans.',
    ),
  ),
  privacy: Type.Optional(
    Type.Array(PrivacyEntry, {
      maxItems: PRIVACY_ENTRIES_MAX,
      description: 'At most one entry per type; each included one puts its parameters in the tag once.',
    }),
  ),
  secureTags: Type.Optional(Type.Boolean({ description: 'true: every URL of the tag is https, and http third-party script URLs are upgraded.' })),
  dataSignalMap: Type.Optional(
    Type.Record(Type.String({ pattern: DATA_SIGNAL_PATTERN }), BoundedString(MACRO_NAME_MAX, { minLength: 1 }), {
      maxProperties: DATA_SIGNAL_MAP_MAX_ENTRIES,
      additionalProperties: false,
      description: "Data signal name to a macro of the ad server; added to (and overriding) the campaign's tag variable maps on that ad server.",
    }),
  ),
};
const includeAdChoices = Type.Optional(Type.Boolean({ description: 'true: the ad shows the AdChoices icon (adchoices=1).' }));
const enableNoScriptTag = Type.Optional(
  Type.Boolean({ description: 'true: a noscript fallback (a click-through link around an image of the placement size).' }),
);
const thirdPartyTrackingScript = Type.Optional(
  BoundedString(THIRD_PARTY_SCRIPT_MAX, {
    description:
      "An http(s) URL or script elements, appended after the tag. Its macros must be the ad server's or the IAB privacy macros; refused otherwise (400).",
  }),
);
const adUnitId = Int64({ minimum: 1, description: 'The ad unit.' });

const BODIES: Record<SingleTagKind, TProperties> = {
  'rich-media': {
    ...common,
    includeAdChoices,
    adUnitId: Type.Optional(adUnitId),
    enableNoScriptTag,
    enableForMobileApp: Type.Optional(Type.Boolean({ description: 'true: an MRAID ad for in-app inventory (mraid.js loads first, mraid=1).' })),
    thirdPartyTrackingScript,
    mobileResponsiveOptions: Type.Optional(
      Type.Object(
        {
          include: Type.Boolean(),
          mobileFlexCreativeUnitType: Type.Optional(Int32({ minimum: 0 })),
          bannerType: Type.Optional(BoundedString(BANNER_TYPE_MAX)),
        },
        { additionalProperties: false, description: 'include true: the ad resizes to the screen (resp=1, flex, banner).' },
      ),
    ),
  },
  'video/in-stream': {
    ...common,
    includeAdChoices,
    tagType: Type.Optional(BoundedString(TAG_TYPE_MAX, { description: 'The VAST flavour the player expects, e.g. VAST 4.2.' })),
    playerType: Type.Optional(
      Type.Object({ name: BoundedString(PLAYER_FIELD_MAX), version: BoundedString(PLAYER_FIELD_MAX) }, { additionalProperties: false }),
    ),
  },
  'video/in-banner': {
    ...common,
    enableNoScriptTag,
    includeAdChoices,
    isDynamicPriVideo: Type.Optional(Type.Boolean()),
    thirdPartyTrackingScript,
  },
  'video/mobile/in-web': {
    ...common,
    baseAdUnitId: Int64({ minimum: 1 }),
    behaviourAdUnitTypeId: Type.Optional(Int64({ minimum: 1 })),
    useCustomLayout: Type.Optional(Type.Boolean()),
    thirdPartyTrackingScript,
  },
  native: { ...common, adUnitId },
};

const KIND_SUMMARIES: Record<SingleTagKind, string> = {
  'rich-media': 'Generate a rich-media tag for a placement',
  'video/in-stream': 'Generate an in-stream video tag (a VAST URL) for a placement',
  'video/in-banner': 'Generate an in-banner video tag for a placement',
  'video/mobile/in-web': 'Generate a mobile in-web video tag for a placement',
  native: 'Generate a native tag for a placement',
};

const KIND_EXAMPLES: Record<SingleTagKind, Record<string, unknown>> = {
  'rich-media': {
    campaignId: 7,
    adServerId: 'gam',
    includeAdChoices: true,
    privacy: [
      { include: true, type: 'GDPRv2', consentMacro: '${GDPR_CONSENT_755}' },
      { include: true, type: 'ccpa' },
    ],
    secureTags: true,
    dataSignalMap: { storeId: '%%PATTERN:store%%' },
    enableNoScriptTag: true,
  },
  'video/in-stream': { campaignId: 7, adServerId: 'dv360', tagType: 'VAST 4.2', playerType: { name: 'jwplayer', version: '8.30' }, secureTags: true },
  'video/in-banner': { campaignId: 7, adServerId: 'xandr', isDynamicPriVideo: true, privacy: [{ include: true, type: 'ccpa' }] },
  'video/mobile/in-web': { campaignId: 7, adServerId: 'ttd', baseAdUnitId: 3, useCustomLayout: true },
  native: { campaignId: 7, adServerId: 'onsite-rm', adUnitId: 4, additionalParams: { responseFormat: 1 } },
};

const TagResult = Type.Object({
  message: Type.String({ description: 'Tag generated, and what was changed to make the tag right for the ad server (e.g. an http URL upgraded).' }),
  tagMetadataId: Type.Integer({ description: 'The stored tag; its URLs carry it as tm.' }),
  tagValue: Type.String({ description: 'A script element, or a URL (in-stream VAST, and ad servers that take URLs).' }),
});

const SERVING_TEXT =
  'Tags point at the serving paths under PUBLIC_BASE_URL: /serve/v1/tags/<kind>.js (script tags), /serve/v1/ads/<kind>.html (URL tags), ' +
  '/serve/v1/vast/in-stream.xml (VAST), /serve/v1/img/<kind>.png and /serve/v1/click (noscript fallback). Every URL carries plc (placement), mp (media plan), ' +
  'cmp (campaign), tm (tagMetadataId), as (ad server), the options, ds_<signal> per data signal, the privacy parameters, cb (the cache-buster macro) and, last, ' +
  'click (the click macro; a raw click macro runs to the end of the URL). Macros are written verbatim so the ad server can expand them. ' +
  'campaignId must be the campaign of the media plan and adServerId the ad server of the placement (400 otherwise). ' +
  "Generating stores the tag (tagMetadataId) and marks the placement's isTagPresent; the newest tag of a placement and kind is the one the tag CSV lists.";

const singleTagRoutes = Object.entries(BODIES).map(([kind, properties]) =>
  defineRoute({
    operationId: `generate${kind
      .split(/[/-]/)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('')}Tag`,
    method: 'post',
    path: `/v2/accounts/:accountId/media-plans/:mediaPlanId/placements/:placementId/tags/${kind}`,
    tag: TAG,
    summary: KIND_SUMMARIES[kind as SingleTagKind],
    description: SERVING_TEXT,
    permission: TAGGING_TRACKERS_ACCESS.generateTag,
    scope: { account: 'accountId' },
    params: PlacementPath,
    body: Type.Object(properties, { additionalProperties: false }),
    success: { status: 200, description: 'The tag', schema: TagResult },
    problems: ['MEDIA_PLAN_NOT_FOUND', 'PLACEMENT_NOT_FOUND'],
    example: {
      params: { accountId: 1001, mediaPlanId: 3, placementId: 41 },
      request: KIND_EXAMPLES[kind as SingleTagKind],
      response:
        kind === 'video/in-stream'
          ? {
              message: 'Tag generated.',
              tagMetadataId: 90,
              tagValue: 'https://ads.example.com/serve/v1/vast/in-stream.xml?plc=41&mp=3&cmp=7&tm=90&as=dv360&vtt=VAST%204.2&cb=${CACHEBUSTER}',
            }
          : {
              message: 'Tag generated.',
              tagMetadataId: 90,
              tagValue:
                '<script type="text/javascript" src="https://ads.example.com/serve/v1/tags/rich-media.js?plc=41&amp;mp=3&amp;cmp=7&amp;tm=90&amp;as=gam"></script>',
            },
    },
    async handle({ params, body, backends }) {
      const b = body as Record<string, unknown> & { campaignId: number; adServerId: string };
      const result = await backends.taggingTrackers.generateTag({
        accountId: params.accountId,
        mediaPlanId: params.mediaPlanId,
        placementId: params.placementId,
        kind,
        campaignId: b.campaignId,
        adServerId: b.adServerId,
        includeAdChoices: b.includeAdChoices === true,
        additionalParamsJson: JSON.stringify(b.additionalParams ?? {}),
        privacy: (b.privacy as v1.PrivacyEntry[] | undefined) ?? [],
        secureTags: b.secureTags === true,
        dataSignalMap: (b.dataSignalMap as Record<string, string> | undefined) ?? {},
        adUnitId: b.adUnitId as number | undefined,
        enableNoScriptTag: b.enableNoScriptTag === true,
        enableForMobileApp: b.enableForMobileApp === true,
        thirdPartyTrackingScript: b.thirdPartyTrackingScript as string | undefined,
        mobileResponsiveOptions: b.mobileResponsiveOptions as v1.MobileResponsiveOptions | undefined,
        tagType: b.tagType as string | undefined,
        playerType: b.playerType as v1.PlayerType | undefined,
        isDynamicPriVideo: b.isDynamicPriVideo === true,
        baseAdUnitId: b.baseAdUnitId as number | undefined,
        behaviourAdUnitTypeId: b.behaviourAdUnitTypeId as number | undefined,
        useCustomLayout: b.useCustomLayout === true,
      });
      return { body: { message: result.message, tagMetadataId: result.tagMetadataId, tagValue: result.tagValue } };
    },
  }),
);

// --- the tag CSV (16) -------------------------------------------------------------------------------

/** A spreadsheet runs a cell starting with one of these as a formula; a leading ' keeps it text. */
const FORMULA_START = /^[=+\-@\t\r]/;
export const neutraliseCell = (value: string) => (FORMULA_START.test(value) ? `'${value}` : value);

/**
 * `attachment; filename="<name>_tags.csv"` with the name reduced to safe ASCII, plus RFC 5987's
 * filename* carrying the full UTF-8 name when it is not plain ASCII.
 */
export function tagsContentDisposition(campaignName: string): string {
  const unsafe = (c: string) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || c === '/' || c === '\\';
  const readable =
    Array.from(campaignName, (c) => (unsafe(c) ? '_' : c))
      .join('')
      .trim() || 'campaign';
  const ascii =
    readable
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9 ._-]/g, '_')
      .replace(/_+/g, '_')
      .replace(/^[ .]+/, '')
      .slice(0, 150) || 'campaign';
  const header = `attachment; filename="${ascii}_tags.csv"`;
  if (/^[\x20-\x7e]*$/.test(readable) && ascii === readable) return header;
  const encoded = encodeURIComponent(`${readable}_tags.csv`).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${header}; filename*=UTF-8''${encoded}`;
}

const downloadTagsRoute = defineRoute({
  operationId: 'downloadTags',
  method: 'get',
  path: '/v2/accounts/:accountId/retail-campaigns/:retailCampaignIdx/download-tags',
  tag: TAG,
  summary: 'Download the ad tags of a retail campaign as CSV',
  description:
    'Content type application/x-download; Content-Disposition attachment named <campaignName>_tags.csv (the name reduced to safe ASCII, with filename* ' +
    `for the full UTF-8 name). A header row (${TAG_CSV_COLUMNS.join(', ')}), then one row per ad unit tag: the newest tag of each placement and kind ` +
    "generated for the campaign, in generation order. RFC 4180 quoting; a cell starting with = + - @ (or tab, CR) is prefixed with ' so a spreadsheet " +
    'does not run it as a formula. The rows stream as they are read. The campaign must be ACTIVE (409 otherwise).',
  permission: TAGGING_TRACKERS_ACCESS.listCampaignTags,
  scope: { account: 'accountId' },
  params: PathParams({ accountId: AccountId, retailCampaignIdx: Idx }),
  success: { status: 200, description: 'The CSV file', mediaType: 'application/x-download' },
  problems: ['RETAIL_CAMPAIGN_NOT_FOUND', 'RETAIL_CAMPAIGN_NOT_ACTIVE'],
  example: { params: { accountId: 1001, retailCampaignIdx: 7 } },
  async handle({ params, backends }) {
    const page = (afterTagMetadataId: number) =>
      backends.taggingTrackers.listCampaignTags({
        accountId: params.accountId,
        retailCampaignId: params.retailCampaignIdx,
        afterTagMetadataId,
        limit: TAG_CSV_PAGE_ROWS,
      });
    // The first page answers the campaign's 404 and 409 while a problem can still be sent.
    const first = await page(0);
    async function* rows() {
      let current = first;
      for (;;) {
        for (const row of current.rows) yield [row.siteName, String(row.placementId), row.placementName, row.dimension, row.adServerId, row.kind, row.tagValue];
        if (current.rows.length < TAG_CSV_PAGE_ROWS) return;
        current = await page(current.rows[current.rows.length - 1].tagMetadataId);
      }
    }
    const csv = stringify({ header: true, columns: [...TAG_CSV_COLUMNS], cast: { string: neutraliseCell }, record_delimiter: 'windows' });
    const source = Readable.from(rows());
    // A page that fails part-way ends the file short rather than leaving the download hanging.
    source.on('error', (error) => csv.destroy(error));
    return {
      headers: { 'Content-Disposition': tagsContentDisposition(first.campaignName), 'Cache-Control': 'no-store' },
      stream: source.pipe(csv),
    };
  },
});

/** Single tags (five kinds), tag variable maps and the tag CSV, served by tagging-trackers. */
export const taggingRoutes: RouteSpec[] = [...tagVariableMapRoutes, ...singleTagRoutes, downloadTagsRoute];
