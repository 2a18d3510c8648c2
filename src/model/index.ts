export * from './errors';
export * from './job';
export * from './connection';
export * from './mapping';
export * from './queue-message';
export * from './config';
export * from './watermark-record';
