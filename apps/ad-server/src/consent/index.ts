export {
  createConsentDecider,
  decideConsent,
  signalValue,
  DEFAULT_CONSENT_CACHE_SIZE,
  GPP_OPT_OUT_FIELDS,
  REQUIRED_TCF_PURPOSES,
  type ConsentDecider,
  type ConsentDeciderOptions,
  type ConsentDecision,
  type ConsentQuery,
  type ConsentReason,
  type OptOutStatus,
  type TcfStatus,
} from './consent';
export { LruCache } from './lru';
