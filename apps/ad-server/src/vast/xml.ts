const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const XML_SPECIAL = /[&<>"']/g;
// Characters XML 1.0 does not allow at all (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/U+FFFF).
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text or attribute content, escaped; characters XML cannot carry are dropped. */
export function xmlEscape(value: string): string {
  return value.replace(XML_INVALID, '').replace(XML_SPECIAL, (c) => XML_ESCAPES[c]);
}

/** A CDATA section holding `value` verbatim (a `]]>` inside is split across two sections). */
export function cdata(value: string): string {
  return '<![CDATA[' + value.replace(XML_INVALID, '').replace(/]]>/g, ']]]]><![CDATA[>') + ']]>';
}
