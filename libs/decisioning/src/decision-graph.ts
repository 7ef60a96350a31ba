import type { ExpressionValue } from '@contracts/domain';

/** A dynamic campaign's decision graph: audience segments, each a condition over data signals, and the creative masters they serve. */
export interface Expression {
  dataSignalServiceId: number;
  dataSignalPropertyId: string;
  operator: string;
  /** Checked by the rules: a string or number of the property's type, or a list for IN, NOT_IN and BETWEEN. */
  value: ExpressionValue;
}

export interface Segment {
  name: string;
  creativeMasters: string[];
  condition: { operator: string; expressions: Expression[] };
}

export interface DecisionGraph {
  defaultCreativeMaster: string | null;
  rulePriority: string | null;
  segments: Segment[];
}
