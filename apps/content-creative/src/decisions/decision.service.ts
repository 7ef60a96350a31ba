import { DATA_SIGNAL_PROPERTY_ID_MAX, EXPLAIN_REQUEST_ID_MAX, EXPLAIN_SIGNALS_MAX, EXPRESSION_VALUE_MAX } from '@contracts/domain';
import { validationFailed, type FieldError } from '@platform/errors';
import type { CampaignService } from '../campaigns/campaign.service';
import { explainDecision, signalKey, type Explanation, type SignalValue } from '@domain/decisioning';

export interface SignalInput {
  dataSignalServiceId: number;
  dataSignalPropertyId: string;
  /** A string or a number; anything else is refused. */
  value: unknown;
}

function signalErrors(signals: readonly SignalInput[], requestId: string): FieldError[] {
  const errors: FieldError[] = [];
  if (signals.length > EXPLAIN_SIGNALS_MAX)
    errors.push({ pointer: '/signals', code: 'TOO_MANY_ITEMS', detail: `signals may hold at most ${EXPLAIN_SIGNALS_MAX} items.` });
  if (requestId.length > EXPLAIN_REQUEST_ID_MAX)
    errors.push({ pointer: '/requestId', code: 'TOO_LONG', detail: `requestId must be at most ${EXPLAIN_REQUEST_ID_MAX} characters.` });
  const seen = new Set<string>();
  signals.slice(0, EXPLAIN_SIGNALS_MAX).forEach((signal, i) => {
    const key = signalKey(signal.dataSignalServiceId, signal.dataSignalPropertyId);
    if (signal.dataSignalPropertyId.length === 0 || signal.dataSignalPropertyId.length > DATA_SIGNAL_PROPERTY_ID_MAX)
      errors.push({ pointer: `/signals/${i}/dataSignalPropertyId`, code: 'INVALID_FORMAT', detail: 'dataSignalPropertyId must be a property id.' });
    else if (seen.has(key)) errors.push({ pointer: `/signals/${i}`, code: 'DUPLICATE', detail: `Signal ${key} is given twice.` });
    seen.add(key);
    const v = signal.value;
    if (!((typeof v === 'string' && v.length <= EXPRESSION_VALUE_MAX) || (typeof v === 'number' && Number.isFinite(v))))
      errors.push({
        pointer: `/signals/${i}/value`,
        code: 'INVALID_VALUE',
        detail: `value must be a string of at most ${EXPRESSION_VALUE_MAX} characters or a number.`,
      });
  });
  return errors;
}

export class DecisionService {
  constructor(private readonly campaigns: CampaignService) {}

  /** What the campaign serves for these signal values, and why; the campaign must be the account's. */
  async explain(accountId: number, campaignId: number, signals: readonly SignalInput[], requestId: string): Promise<Explanation> {
    const errors = signalErrors(signals, requestId);
    if (errors.length > 0) throw validationFailed(errors);
    const campaign = await this.campaigns.get(accountId, campaignId);
    const values = new Map<string, SignalValue>(signals.map((s) => [signalKey(s.dataSignalServiceId, s.dataSignalPropertyId), s.value as SignalValue]));
    return explainDecision(campaign.decisionGraph, values, requestId);
  }
}
