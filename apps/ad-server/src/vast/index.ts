export {
  buildVastEmpty,
  buildVastInline,
  vastTime,
  DEFAULT_AD_SYSTEM,
  VAST_NAMESPACE,
  VAST_TRACKER_FIELDS,
  VAST_TRACKING_EVENTS,
  VAST_VERSION,
  type VastInlineInput,
  type VastMediaFile,
  type VastTrackingEvent,
} from './vast';
export { cdata, xmlEscape } from './xml';
