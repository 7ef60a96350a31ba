// The graph's shape is a contract (the ad server's snapshot carries it): declared once in @contracts/domain.
export type { DecisionGraph, Expression, Segment } from '@contracts/domain';
