// Generated gRPC contracts; regenerate with `npm run proto:gen`, never edit files under gen/.
export * as channelsPlansV1 from './gen/channelsplans/v1/channels_plans';
export * as jobsV1 from './gen/platform/jobs/v1/job_progress';
export * as templatesV1 from './gen/templates/v1/templates';
