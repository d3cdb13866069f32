// Client entry point: AgioClient, the event reader and run listing.
export * from './agio-client';
export * from './event-reader';
export * from './run-list';
export * from './model-outage';
// The Temporal SDK classes a client needs, from the very version Agio pins (a second copy would not interoperate).
export { Client, Connection } from '@temporalio/client';
