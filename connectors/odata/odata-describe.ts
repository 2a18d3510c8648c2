import type { DescriberFactory, EntityDescriber, EntityDescription } from '../base/entity-describer';
import { openOdataConnection } from './odata-connection';
import type { OdataHttpClient } from './odata-http';
import type { OdataSettings } from './odata-settings';
import { type CsdlModel, readCsdl } from './csdl';

/** Entity sets of an `odata` connection, from its `$metadata` document (read once). */
class OdataDescriber implements EntityDescriber {
  readonly entityWord = 'entity set';
  private model?: Promise<CsdlModel>;

  constructor(private readonly http: OdataHttpClient) {}

  private metadata(): Promise<CsdlModel> {
    this.model ??= this.http.request({ method: 'GET', url: '$metadata', headers: { Accept: 'application/xml' }, operation: 'read $metadata' }).then((r) => readCsdl(r.text));
    return this.model;
  }

  async connect(): Promise<void> {
    await this.metadata();
  }

  async describe(entity: string): Promise<EntityDescription | undefined> {
    return (await this.metadata()).get(entity);
  }

  async close(): Promise<void> {}
}

export const openOdataDescriber: DescriberFactory = (ctx) => {
  const settings = ctx.connection.settings as unknown as OdataSettings;
  const open = openOdataConnection(ctx, { type: 'odata', defaultScope: `${new URL(settings.serviceUrl).origin}/.default` });
  return new OdataDescriber(open(settings.serviceUrl));
};
