// Client entry point: AgioClient, the event reader and run listing.
export * from './agio-client';
export * from './event-reader';
export * from './run-list';
export * from './model-outage';
