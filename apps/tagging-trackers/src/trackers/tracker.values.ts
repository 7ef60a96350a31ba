import { isScriptTracker, TRACKER_VALUE_MAX, type TrackerType } from '@contracts/domain';
import { lintMacros, type AdServerMacros } from '../macros/macro.registry';
import { checkThirdPartyScript } from '../tags/third-party-script';

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !/\s/.test(text);
  } catch {
    return false;
  }
};

/**
 * Whether a tracker value will work where it runs: pixel and click trackers are http(s) URLs, script
 * trackers script elements or URLs; every macro must be one the placement's ad server expands (or
 * an IAB privacy macro with a numeric vendor id). Undefined when it passes, else why not.
 */
export function trackerValueProblem(type: TrackerType, value: string, macros: AdServerMacros | undefined): string | undefined {
  if (value.length > TRACKER_VALUE_MAX) return `longer than ${TRACKER_VALUE_MAX} characters`;
  if (isScriptTracker(type)) {
    if (!macros) return isHttpUrl(value) ? undefined : 'not an http(s) URL';
    const checked = checkThirdPartyScript(value, macros, false);
    return checked.errors.length > 0 ? checked.errors.map((e) => e.detail).join(' ') : undefined;
  }
  if (!isHttpUrl(value)) return 'not an http(s) URL';
  const findings = macros ? lintMacros(value, macros) : [];
  return findings.length > 0 ? findings.map((f) => f.detail).join(' ') : undefined;
}
