import { defineProblems } from './problem-entry';

/** Dynamic campaigns, content maps and decision explain. */
export const CONTENT_CREATIVE_PROBLEMS = defineProblems({
  DYNAMIC_CAMPAIGN_NOT_FOUND: { status: 404, title: 'Dynamic campaign not found' },
});
