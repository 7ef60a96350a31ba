import { defineProblems } from './problem-entry';

/** The gateway's own resources: orgs, accounts and API keys (the admin API), logos and served files. */
export const IDENTITY_PROBLEMS = defineProblems({
  ORG_EXISTS: { status: 409, title: 'The organization already exists' },
  API_KEY_NOT_FOUND: { status: 404, title: 'API key not found' },
  REVOCATION_NOT_BROADCAST: { status: 503, title: 'The revocation could not reach every gateway' },
  LOGO_NOT_FOUND: { status: 404, title: 'Logo not found' },
  FILE_NOT_FOUND: { status: 404, title: 'File not found' },
});
