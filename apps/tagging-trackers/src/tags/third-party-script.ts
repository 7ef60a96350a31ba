import { parseFragment, serializeOuter, type DefaultTreeAdapterMap } from 'parse5';
import type { FieldError, FieldErrorCode } from '@platform/errors';
import { lintMacros, type AdServerMacros } from '../macros/macro.registry';

type Node = DefaultTreeAdapterMap['childNode'];
type Element = DefaultTreeAdapterMap['element'];

const POINTER = '/thirdPartyTrackingScript';

export interface CheckedScript {
  /** Script elements to append to the tag, https-upgraded when asked. */
  html: string;
  /** What was changed, for the tag result's message. */
  fixes: string[];
}

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const refuse = (code: FieldErrorCode, detail: string): { errors: FieldError[] } => ({ errors: [{ pointer: POINTER, code, detail }] });

/**
 * A third-party tracking script rides along in a tag only when it will run where the tag runs: an
 * http(s) URL (loaded as a script) or nothing but script elements, with macros the ad server
 * expands. With secureTags an http src is upgraded (and said so); http inside inline code cannot be
 * rewritten safely, so it is refused.
 */
export function checkThirdPartyScript(text: string, macros: AdServerMacros, secure: boolean): { errors: FieldError[]; script?: CheckedScript } {
  const trimmed = text.trim();
  if (trimmed === '') return { errors: [], script: { html: '', fixes: [] } };
  const findings = lintMacros(trimmed, macros);
  if (findings.length > 0) return refuse(findings[0].problem, findings.map((f) => f.detail).join(' '));

  const fixes: string[] = [];
  const upgrade = (src: string) => {
    if (secure && src.startsWith('http://')) {
      const upgraded = `https://${src.slice('http://'.length)}`;
      fixes.push(`third-party script ${src} upgraded to ${upgraded}`);
      return upgraded;
    }
    return src;
  };

  if (!trimmed.startsWith('<')) {
    if (!isHttpUrl(trimmed)) return refuse('INVALID_FORMAT', 'thirdPartyTrackingScript must be an http(s) URL or script elements.');
    return { errors: [], script: { html: `<script type="text/javascript" src="${escapeAttribute(upgrade(trimmed))}"></script>`, fixes } };
  }

  const fragment = parseFragment(trimmed);
  const parts: string[] = [];
  for (const node of fragment.childNodes as Node[]) {
    if (node.nodeName === '#text' && 'value' in node && node.value.trim() === '') continue;
    if (node.nodeName !== 'script') return refuse('INVALID_FORMAT', `thirdPartyTrackingScript may hold script elements only; found ${node.nodeName}.`);
    const element = node as Element;
    const src = element.attrs.find((a) => a.name === 'src');
    if (src) {
      if (!isHttpUrl(src.value)) return refuse('INVALID_FORMAT', `A script src must be an http(s) URL; got ${JSON.stringify(src.value)}.`);
      src.value = upgrade(src.value);
    } else if (secure && /http:\/\//i.test(serializeOuter(element))) {
      return refuse('INSECURE_URL', 'secureTags asks for https, and an inline third-party script loads an http:// URL.');
    }
    parts.push(serializeOuter(element));
  }
  if (parts.length === 0) return refuse('INVALID_FORMAT', 'thirdPartyTrackingScript holds no script element.');
  return { errors: [], script: { html: parts.join(''), fixes } };
}
