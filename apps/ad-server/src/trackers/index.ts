export { CACHE_BUSTER_MACROS, compileTrackerUrl, expandCacheBusters, newCacheBuster, trackerUrls, type CompiledTrackerUrl } from './cache-buster';
