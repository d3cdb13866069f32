// A run's own model settings over its agent's (defined in common/, where the worker merges them for runs by name too).
export { withModelSettings } from '../common/model-settings';
