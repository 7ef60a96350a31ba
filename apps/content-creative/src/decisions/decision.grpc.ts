import { CONTENT_CREATIVE_ACCESS } from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { DecisionService } from './decision.service';

/** A value that is not JSON stays undefined, which the rules refuse as INVALID_VALUE. */
function parseValue(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

export function decisionGrpc({
  logger,
  guard,
  decisions,
}: {
  logger: Logger;
  guard: CallGuard;
  decisions: DecisionService;
}): Pick<v1.ContentCreativeServiceServer, 'explainDecision'> {
  return unaryHandlers(v1.ContentCreativeServiceService, CONTENT_CREATIVE_ACCESS, logger, {
    explainDecision: async (request, call) => {
      guard.account(call, request.accountId);
      const explanation = await decisions.explain(
        request.accountId,
        request.campaignId,
        request.signals.map((s) => ({
          dataSignalServiceId: s.dataSignalServiceId,
          dataSignalPropertyId: s.dataSignalPropertyId,
          value: parseValue(s.valueJson),
        })),
        request.requestId,
      );
      return {
        creativeMaster: explanation.creativeMaster ?? undefined,
        matchedSegment: explanation.matchedSegment ?? undefined,
        usedDefault: explanation.usedDefault,
        rulePriority: explanation.rulePriority ?? undefined,
        segments: explanation.segments.map((segment) => ({
          name: segment.name,
          matched: segment.matched,
          expressions: segment.expressions.map((t) => ({
            expression: { ...t.expression, valueJson: JSON.stringify(t.expression.value) },
            signalValueJson: t.signalValue === null ? undefined : JSON.stringify(t.signalValue),
            outcome: t.outcome,
            reason: t.reason ?? undefined,
          })),
        })),
      };
    },
  });
}
