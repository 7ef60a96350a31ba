import type { GuardedCall } from '@platform/service';
import type { ChannelsPlansPeer } from './channels-plans.peer';

/** channels-plans on behalf of the caller of one incoming call. */
export type PeerOf = (call: GuardedCall) => ChannelsPlansPeer;
