// Hand-written values shared by the gateway and the services (the generated gRPC code is @contracts/proto).
export * from './paging';
export * from './permissions';
export * from './proto-ranges';
export * from './channels-plans';
export * from './content-creative';
export * from './exports';
export * from './tagging';
export * from './templates';
export * from './asset-sources';
export * from './feeds';
export * from './json-depth';
export * from './storage';
export * from './cached-views';
export * from './problems';
export * from './retail-campaign.rules';
export * from './method-access';
export * from './fields';
