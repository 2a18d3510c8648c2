import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The Service Bus trigger depends on the host's contracts only: the binding-data layout
 * (binding-data.ts), the Settlement gRPC service (settlement-client.ts) and the one public
 * extension point of @azure/functions for SDK bindings, `ResourceFactoryResolver` of
 * @azure/functions-extensions-base.
 */
describe('what the Service Bus trigger depends on', () => {
  it('loads nothing of @azure/functions-extensions-servicebus', () => {
    const loads = /(from\s+|require\(\s*|import\(\s*)['"]@azure\/functions-extensions-servicebus/;
    const users = [...sources(path.join(ROOT, 'functions')), ...sources(path.join(ROOT, 'src'))].filter((file) => loads.test(readFileSync(file, 'utf8')));
    expect(users.map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  it('registers its factory with the very ResourceFactoryResolver @azure/functions asks (one copy of @azure/functions-extensions-base)', () => {
    const fromFunctions = require.resolve('@azure/functions-extensions-base', { paths: [path.dirname(require.resolve('@azure/functions'))] });
    expect(fromFunctions).toBe(require.resolve('@azure/functions-extensions-base', { paths: [path.join(ROOT, 'functions')] }));
  });

  it('ships @grpc/grpc-js, which the settlement client needs, as a production dependency', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).toContain('@grpc/grpc-js');
  });
});
