import { ASSET_SOURCES_PROBLEMS } from './asset-sources.problems';
import { CHANNELS_PLANS_PROBLEMS } from './channels-plans.problems';
import { CONTENT_CREATIVE_PROBLEMS } from './content-creative.problems';
import { IDENTITY_PROBLEMS } from './identity.problems';
import { PLATFORM_PROBLEMS } from './platform.problems';
import type { ProblemEntry } from './problem-entry';
import { STORAGE_PROBLEMS } from './storage.problems';
import { TAGGING_PROBLEMS } from './tagging.problems';
import { TEMPLATES_PROBLEMS } from './templates.problems';

export type { ProblemEntry } from './problem-entry';
export * from './field-rules';
export {
  PLATFORM_PROBLEMS,
  IDENTITY_PROBLEMS,
  CHANNELS_PLANS_PROBLEMS,
  CONTENT_CREATIVE_PROBLEMS,
  ASSET_SOURCES_PROBLEMS,
  STORAGE_PROBLEMS,
  TAGGING_PROBLEMS,
  TEMPLATES_PROBLEMS,
};

/** Every domain's problems by domain; a code belongs to exactly one (problems.spec.ts). */
export const PROBLEM_DOMAINS = {
  platform: PLATFORM_PROBLEMS,
  identity: IDENTITY_PROBLEMS,
  'channels-plans': CHANNELS_PLANS_PROBLEMS,
  'content-creative': CONTENT_CREATIVE_PROBLEMS,
  'asset-sources': ASSET_SOURCES_PROBLEMS,
  storage: STORAGE_PROBLEMS,
  tagging: TAGGING_PROBLEMS,
  templates: TEMPLATES_PROBLEMS,
} as const;

/**
 * The catalog of problem codes: every `code` an answer can carry, with its status and title. `AppError`
 * takes only these codes, so a code that is not declared here does not compile.
 */
export const PROBLEMS = {
  ...PLATFORM_PROBLEMS,
  ...IDENTITY_PROBLEMS,
  ...CHANNELS_PLANS_PROBLEMS,
  ...CONTENT_CREATIVE_PROBLEMS,
  ...ASSET_SOURCES_PROBLEMS,
  ...STORAGE_PROBLEMS,
  ...TAGGING_PROBLEMS,
  ...TEMPLATES_PROBLEMS,
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

/** The codes answered with one HTTP status, e.g. `ProblemCodeWithStatus<401>` for the ones that need WWW-Authenticate. */
export type ProblemCodeWithStatus<S extends number> = { [C in ProblemCode]: (typeof PROBLEMS)[C]['status'] extends S ? C : never }[ProblemCode];

export const isProblemCode = (code: string): code is ProblemCode => Object.prototype.hasOwnProperty.call(PROBLEMS, code);

export const problemEntry = (code: ProblemCode): ProblemEntry => PROBLEMS[code];

/**
 * A rule's verdict that the request must be refused, before it becomes an error: pure domain rules
 * (`@contracts/domain`) answer one, and `@platform/errors`' `enforce` throws it as an AppError.
 */
export interface Refusal {
  code: ProblemCode;
  detail: string;
}
