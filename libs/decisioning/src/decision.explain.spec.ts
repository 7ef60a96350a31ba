import type { DecisionGraph } from './decision-graph';
import { signalKey, type SignalValue } from './decision.evaluator';
import { explainDecision } from './decision.explain';

const GRAPH: DecisionGraph = {
  defaultCreativeMaster: 'cm-default',
  rulePriority: 'PRIORITY',
  segments: [
    {
      name: 'Warm weekend',
      creativeMasters: ['cm-sun'],
      condition: {
        operator: 'and',
        expressions: [
          { dataSignalServiceId: 3, dataSignalPropertyId: 'temperature', operator: 'greater-than', value: 20 },
          { dataSignalServiceId: 2, dataSignalPropertyId: 'dayOfWeek', operator: 'IN', value: ['SATURDAY', 'SUNDAY'] },
        ],
      },
    },
    {
      name: 'Rain',
      creativeMasters: ['cm-umbrella'],
      condition: { operator: 'or', expressions: [{ dataSignalServiceId: 3, dataSignalPropertyId: 'condition', operator: 'EQUALS', value: 'rain' }] },
    },
  ],
};

const signals = (entries: [number, string, SignalValue][]) => new Map(entries.map(([id, property, value]) => [signalKey(id, property), value]));

describe(explainDecision.name, () => {
  it('names the served segment and master, and every expression outcome', () => {
    const explanation = explainDecision(
      GRAPH,
      signals([
        [3, 'temperature', 25],
        [2, 'dayOfWeek', 'SUNDAY'],
        [3, 'condition', 'clear'],
      ]),
      'r',
    );
    expect(explanation).toMatchObject({ creativeMaster: 'cm-sun', matchedSegment: 'Warm weekend', usedDefault: false, rulePriority: 'PRIORITY' });
    expect(explanation.segments.map((s) => [s.name, s.matched, s.expressions.map((e) => e.reason)])).toEqual([
      ['Warm weekend', true, [null, null]],
      ['Rain', false, ['OPERATOR_FALSE']],
    ]);
  });

  it('says why nothing matched (missing signal, wrong type, operator false) and that the default served', () => {
    const explanation = explainDecision(
      GRAPH,
      signals([
        [3, 'temperature', '25'],
        [3, 'condition', 'snow'],
      ]),
      'r',
    );
    expect(explanation).toMatchObject({ creativeMaster: 'cm-default', matchedSegment: null, usedDefault: true });
    expect(explanation.segments[0].expressions.map((e) => [e.signalValue, e.outcome, e.reason])).toEqual([
      ['25', false, 'WRONG_TYPE'],
      [null, false, 'MISSING_SIGNAL'],
    ]);
    expect(explanation.segments[1].expressions[0]).toMatchObject({ signalValue: 'snow', outcome: false, reason: 'OPERATOR_FALSE' });
  });
});
