import { defineProblems } from './problem-entry';

/** Dynamic campaigns, content maps, decision explain and creative exports. */
export const CONTENT_CREATIVE_PROBLEMS = defineProblems({
  DYNAMIC_CAMPAIGN_NOT_FOUND: { status: 404, title: 'Dynamic campaign not found' },
  EXPORT_NOT_FOUND: { status: 404, title: 'Export not found' },
  EXPORT_RESOLUTION_NOT_SUPPORTED: { status: 400, title: 'The export format does not support this resolution' },
});
