import { canonicalOperator } from '@contracts/domain';
import type { DecisionGraph, Expression } from './decision-graph';

/**
 * Picks a campaign's creative master from signal values. Built for the serving hot path: a graph is
 * compiled once (operands parsed, IN lists as sets, operators resolved), and `decide` then does no
 * I/O and allocates nothing but its small answer. Depends on nothing beyond @contracts/domain, so the ad
 * server can import it as content-creative does.
 */

/** A signal value as a request carries it; keys are `signalKey(dataSignalId, propertyId)`. */
export type SignalValue = string | number;
export type SignalValues = ReadonlyMap<string, SignalValue>;

export const signalKey = (dataSignalId: number, propertyId: string) => `${dataSignalId}:${propertyId}`;

/** Why an expression did not hold. */
export type ExpressionFailure = 'MISSING_SIGNAL' | 'WRONG_TYPE' | 'OPERATOR_FALSE';

const enum Op {
  Equals,
  NotEquals,
  In,
  NotIn,
  GreaterThan,
  LessThan,
  Between,
  StartsWith,
  Unknown,
}

const OPS: Record<string, Op> = {
  EQUALS: Op.Equals,
  NOT_EQUALS: Op.NotEquals,
  IN: Op.In,
  NOT_IN: Op.NotIn,
  GREATER_THAN: Op.GreaterThan,
  LESS_THAN: Op.LessThan,
  BETWEEN: Op.Between,
  STARTS_WITH: Op.StartsWith,
};

interface CompiledExpression {
  key: string;
  op: Op;
  /** The type a signal value must have for the operator to apply. */
  type: 'string' | 'number';
  scalar: SignalValue;
  set: ReadonlySet<SignalValue> | null;
  low: number;
  high: number;
}

interface CompiledSegment {
  name: string;
  all: boolean;
  expressions: CompiledExpression[];
  creativeMasters: string[];
}

export interface CompiledGraph {
  defaultCreativeMaster: string | null;
  rotate: boolean;
  segments: CompiledSegment[];
}

export interface Decision {
  /** null when no segment matched and the graph has no default: no ad. */
  creativeMaster: string | null;
  /** Index of the segment served; -1 when the default (or nothing) was. */
  segmentIndex: number;
  usedDefault: boolean;
}

function compileExpression(e: Expression): CompiledExpression {
  const op = OPS[canonicalOperator(e.operator)] ?? Op.Unknown;
  const list = Array.isArray(e.value) ? e.value : [e.value];
  const first = list[0];
  const numeric = op === Op.GreaterThan || op === Op.LessThan || op === Op.Between || typeof first === 'number';
  return {
    key: signalKey(e.dataSignalServiceId, e.dataSignalPropertyId),
    op,
    type: numeric ? 'number' : 'string',
    scalar: first ?? '',
    set: op === Op.In || op === Op.NotIn ? new Set(list) : null,
    low: typeof list[0] === 'number' ? list[0] : Number.NaN,
    high: typeof list[1] === 'number' ? list[1] : Number.NaN,
  };
}

export function compileGraph(graph: DecisionGraph): CompiledGraph {
  return {
    defaultCreativeMaster: graph.defaultCreativeMaster,
    rotate: graph.rulePriority === 'EQUAL_ROTATION',
    segments: graph.segments.map((s) => ({
      name: s.name,
      all: s.condition.operator !== 'or',
      expressions: s.condition.expressions.map(compileExpression),
      creativeMasters: s.creativeMasters,
    })),
  };
}

/** Whether one expression holds for the signals; the failure reason when it does not. */
export function expressionOutcome(e: CompiledExpression, signals: SignalValues): ExpressionFailure | null {
  const value = signals.get(e.key);
  if (value === undefined) return 'MISSING_SIGNAL';
  if (typeof value !== e.type || (typeof value === 'number' && !Number.isFinite(value))) return 'WRONG_TYPE';
  let holds: boolean;
  switch (e.op) {
    case Op.Equals:
      holds = value === e.scalar;
      break;
    case Op.NotEquals:
      holds = value !== e.scalar;
      break;
    case Op.In:
      holds = e.set !== null && e.set.has(value);
      break;
    case Op.NotIn:
      holds = e.set !== null && !e.set.has(value);
      break;
    case Op.GreaterThan:
      holds = (value as number) > (e.scalar as number);
      break;
    case Op.LessThan:
      holds = (value as number) < (e.scalar as number);
      break;
    case Op.Between:
      holds = (value as number) >= e.low && (value as number) <= e.high;
      break;
    case Op.StartsWith:
      holds = (value as string).startsWith(e.scalar as string);
      break;
    default:
      holds = false;
  }
  return holds ? null : 'OPERATOR_FALSE';
}

export function segmentMatches(segment: CompiledSegment, signals: SignalValues): boolean {
  if (segment.expressions.length === 0) return false;
  for (const expression of segment.expressions) {
    const holds = expressionOutcome(expression, signals) === null;
    if (segment.all && !holds) return false;
    if (!segment.all && holds) return true;
  }
  return segment.all;
}

/** FNV-1a over the request id's UTF-16 code units: cheap, allocation-free and well spread. */
export function requestHash(requestId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < requestId.length; i++) {
    hash ^= requestId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // A final avalanche so ids differing only in their last character still land far apart modulo small counts.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/**
 * The creative master to serve. PRIORITY (or no rule priority) serves the first matching segment;
 * EQUAL_ROTATION spreads requests evenly over every matching segment. Within a segment the
 * creative masters rotate evenly too. The same request id always gets the same answer.
 */
export function decide(graph: CompiledGraph, signals: SignalValues, requestId: string): Decision {
  let matching = 0;
  let first = -1;
  for (let i = 0; i < graph.segments.length; i++) {
    if (!segmentMatches(graph.segments[i], signals)) continue;
    if (first === -1) first = i;
    matching++;
    if (!graph.rotate) break;
  }
  if (matching === 0) return { creativeMaster: graph.defaultCreativeMaster, segmentIndex: -1, usedDefault: graph.defaultCreativeMaster !== null };
  const hash = requestHash(requestId);
  let chosen = first;
  if (graph.rotate && matching > 1) {
    // The nth matching segment, found again instead of remembered, so nothing is allocated.
    let target = hash % matching;
    for (let i = first; i < graph.segments.length; i++) {
      if (!segmentMatches(graph.segments[i], signals)) continue;
      if (target-- === 0) {
        chosen = i;
        break;
      }
    }
  }
  const masters = graph.segments[chosen].creativeMasters;
  // A different slice of the hash picks the master, so segment and master choices are independent.
  const master = masters[Math.floor(hash / Math.max(matching, 1)) % masters.length];
  return { creativeMaster: master, segmentIndex: chosen, usedDefault: false };
}
