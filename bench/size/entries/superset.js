// The whole public API of the Superset embedded SDK: one function.
export { embedDashboard } from '@superset-ui/embedded-sdk';
