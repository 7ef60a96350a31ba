import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';

const XSD = readFileSync(join(__dirname, 'vast_4.2.xsd'), 'utf8');

/**
 * The IAB VAST 4.2 XSD's complaints about a document (none: valid), from libxml2 compiled to WebAssembly.
 * The XSD types URLs xs:anyURI, and a VAST macro's square brackets are not URI characters, so libxml2
 * rejects every `[ERRORCODE]`-style macro the spec itself puts in URLs. The player substitutes them before
 * any URL is used; the check does the same (each `[MACRO]` becomes `0`) and validates everything else as produced.
 */
export async function vastSchemaErrors(xml: string): Promise<string[]> {
  const asPlayed = xml.replace(/\[[A-Z0-9_]+\]/g, '0');
  const result = await validateXML({ xml: [{ fileName: 'ad.xml', contents: asPlayed }], schema: [{ fileName: 'vast_4.2.xsd', contents: XSD }] });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}
