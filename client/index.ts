// Client entry point: AgioClient and the event reader.
export * from './agio-client';
export * from './event-reader';
