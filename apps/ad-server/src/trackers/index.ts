export { CACHE_BUSTER_MACROS, compileTrackerUrl, expandCacheBusters, newCacheBuster, trackerUrls, uriSafe, type CompiledTrackerUrl } from './cache-buster';
