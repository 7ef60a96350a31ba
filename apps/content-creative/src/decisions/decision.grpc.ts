import { PERMISSIONS } from '@contracts/domain';
import { contentCreativeV1 as v1 } from '@contracts/proto';
import { unary } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import type { CallGuard } from '@platform/service';
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
  return {
    explainDecision: unary(logger, 'ExplainDecision', async (request, call) => {
      guard.account(call, PERMISSIONS.dynamicCampaignsView, request.accountId);
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
    }),
  };
}
