/**
 * Loads `@azure/functions-extensions-servicebus` for its side effect: it registers the factory
 * that turns the host's SDK binding data into `{ messages, actions }` for Service Bus triggers
 * declared with `sdkBinding: true`. Loaded with `require`, not `import`: the package's typings
 * point at its TypeScript sources, which do not compile under our settings (TS7016 in its
 * gRPC helper), and we use none of its types (see service-bus-settler.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('@azure/functions-extensions-servicebus');

export {};
