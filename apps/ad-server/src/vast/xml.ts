const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const XML_SPECIAL = /[&<>"']/g;
// Characters XML 1.0 does not allow at all (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/U+FFFF).
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// Fast pre-check: most values hold none of these, and then need no rewriting at all.
// eslint-disable-next-line no-control-regex
const MAYBE_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const MAYBE_SPECIAL = /[&<>"']/;

function dropInvalid(value: string): string {
  return MAYBE_INVALID.test(value) ? value.replace(XML_INVALID, '') : value;
}

/** Text or attribute content, escaped; characters XML cannot carry are dropped. */
export function xmlEscape(value: string): string {
  const v = dropInvalid(value);
  return MAYBE_SPECIAL.test(v) ? v.replace(XML_SPECIAL, (c) => XML_ESCAPES[c]) : v;
}

/** A CDATA section holding `value` verbatim (a `]]>` inside is split across two sections). */
export function cdata(value: string): string {
  const v = dropInvalid(value);
  return '<![CDATA[' + (v.includes(']]>') ? v.replace(/]]>/g, ']]]]><![CDATA[>') : v) + ']]>';
}
