import { EXPORT_LIMITS } from '@contracts/domain';
import { isOutboundFetchError, redactUrl, type OutboundFetch } from '@platform/outbound-fetch';
import type { ObjectStore } from '@platform/s3';

/** A product image's bytes, or why there are none (the creative then shows a placeholder). */
export type ProductImage = { bytes: Buffer } | { missing: string };

export interface ProductImageSource {
  load(accountId: number, imageUrl: string | null): Promise<ProductImage>;
}

/** `/files/accounts/<accountId>/<path>`: a file of an account's asset library, at its cdnUrl. */
const LIBRARY_FILE = /^\/files\/accounts\/(\d+)\/(.+)$/;

/**
 * Where product images come from: a file of the export's own account library (its cdnUrl) is read
 * from object storage; any other URL is a customer's and goes through the outbound fetch guard
 * (private addresses refused, bytes and time capped). Every failure is a reason, never a throw: one
 * bad image degrades one creative, not the export.
 */
export function productImageSource({ store, fetch }: { store: ObjectStore; fetch: OutboundFetch }): ProductImageSource {
  const fromLibrary = async (key: string): Promise<ProductImage> => {
    const stat = await store.statObject(key);
    if (!stat) return { missing: 'the product image is not in the asset library' };
    if (stat.size > EXPORT_LIMITS.maxImageBytes) return { missing: `the product image is larger than ${EXPORT_LIMITS.maxImageBytes} bytes` };
    return { bytes: await store.getObjectBuffer(key) };
  };
  return {
    async load(accountId, imageUrl) {
      if (!imageUrl) return { missing: 'the product has no image' };
      let url: URL;
      try {
        url = new URL(imageUrl);
      } catch {
        return { missing: 'the product image URL is not a URL' };
      }
      const library = LIBRARY_FILE.exec(url.pathname);
      if (library && Number(library[1]) === accountId) {
        try {
          return await fromLibrary(`accounts/${accountId}/${library[2].split('/').map(decodeURIComponent).join('/')}`);
        } catch {
          return { missing: 'the product image cannot be read from the asset library' };
        }
      }
      try {
        const response = await fetch.fetch(imageUrl, { maxBytes: EXPORT_LIMITS.maxImageBytes, timeoutMs: EXPORT_LIMITS.imageFetchTimeoutMs });
        if (response.status < 200 || response.status > 299) return { missing: `the product image answered HTTP ${response.status}` };
        return { bytes: response.body };
      } catch (error) {
        // The code, not the message: the reason is shown to the client and must not carry more than the URL it named.
        const reason = isOutboundFetchError(error) ? error.code : 'FETCH_FAILED';
        return { missing: `the product image cannot be fetched (${reason}) from ${redactUrl(imageUrl)}` };
      }
    },
  };
}
