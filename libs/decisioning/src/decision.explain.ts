import type { DecisionGraph, Expression } from './decision-graph';
import { compileGraph, decide, expressionOutcome, signalKey, type ExpressionFailure, type SignalValue, type SignalValues } from './decision.evaluator';

export interface ExpressionTrace {
  expression: Expression;
  signalValue: SignalValue | null;
  outcome: boolean;
  reason: ExpressionFailure | null;
}

export interface Explanation {
  creativeMaster: string | null;
  matchedSegment: string | null;
  usedDefault: boolean;
  rulePriority: string | null;
  segments: { name: string; matched: boolean; expressions: ExpressionTrace[] }[];
}

/**
 * The decision `decide` makes, with its reasons: every segment with each expression's outcome and
 * why it failed. Off the hot path, so it may allocate what it reports.
 */
export function explainDecision(graph: DecisionGraph, signals: SignalValues, requestId: string): Explanation {
  const compiled = compileGraph(graph);
  const decision = decide(compiled, signals, requestId);
  return {
    creativeMaster: decision.creativeMaster,
    matchedSegment: decision.segmentIndex >= 0 ? graph.segments[decision.segmentIndex].name : null,
    usedDefault: decision.usedDefault,
    rulePriority: graph.rulePriority,
    segments: compiled.segments.map((segment, s) => {
      const expressions = segment.expressions.map((compiledExpression, e): ExpressionTrace => {
        const expression = graph.segments[s].condition.expressions[e];
        const reason = expressionOutcome(compiledExpression, signals);
        return {
          expression,
          signalValue: signals.get(signalKey(expression.dataSignalServiceId, expression.dataSignalPropertyId)) ?? null,
          outcome: reason === null,
          reason,
        };
      });
      const matched = segment.all ? expressions.every((t) => t.outcome) : expressions.some((t) => t.outcome);
      return { name: segment.name, matched: expressions.length > 0 && matched, expressions };
    }),
  };
}
