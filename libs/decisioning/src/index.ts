/**
 * Decides which creative master a dynamic campaign serves for a set of signal values, and explains the
 * decision. Shared by content-creative (explain) and, later, ad serving on its hot path: no I/O.
 */
export type { DecisionGraph, Expression, Segment } from './decision-graph';
export { compileGraph, decide, expressionOutcome, requestHash, segmentMatches, signalKey } from './decision.evaluator';
export type { CompiledGraph, Decision, ExpressionFailure, SignalValue, SignalValues } from './decision.evaluator';
export { explainDecision, type Explanation } from './decision.explain';
