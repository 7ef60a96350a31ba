import { defineProblems } from './problem-entry';

/** Tag variable maps, single tags, the tag CSV and trackers. */
export const TAGGING_PROBLEMS = defineProblems({
  TAG_VARIABLE_MAP_NOT_FOUND: { status: 404, title: 'Tag variable map not found' },
  TAG_VARIABLE_MAP_DUPLICATE: { status: 409, title: 'The campaign already maps this data signal' },
  TAG_VARIABLE_MAPS_LIMIT: { status: 409, title: 'The campaign holds the most tag variable maps it may' },
});
