export { createLifecycle, type Lifecycle, type LifecycleOptions } from './lifecycle';
export { DEFAULT_SHUTDOWN_SIGNALS } from './lifecycle.signals';
