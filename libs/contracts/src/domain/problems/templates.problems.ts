import { defineProblems } from './problem-entry';

/** The retail template catalog and Custom templates. */
export const TEMPLATES_PROBLEMS = defineProblems({
  TEMPLATE_NOT_FOUND: { status: 404, title: 'Template not found' },
  TEMPLATE_NOT_EDITABLE: { status: 409, title: 'A System template cannot be changed' },
  TEMPLATE_NOT_DELETABLE: { status: 409, title: 'A System template cannot be deleted' },
});
