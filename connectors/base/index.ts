export * from './connector-base';
export * from './connector-context';
export * from './error-classification';
export * from './operations';
export * from './registry';
export * from './resolvers';
export * from './source-connector';
export * from './target-connector';
