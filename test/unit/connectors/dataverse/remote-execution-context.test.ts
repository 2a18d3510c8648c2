import { parseWcfDate, readRemoteExecutionContext } from '../../../../connectors/dataverse/remote-execution-context';
import { dataverseEvent } from './dataverse-events';

describe('readRemoteExecutionContext', () => {
  it("reads Microsoft's documented webhook body: Update of a contact with its post-image", () => {
    const event = readRemoteExecutionContext(dataverseEvent('update-contact-webhook'));
    expect(event).toEqual({
      messageName: 'Update',
      entityName: 'contact',
      id: '6d81597f-0f9f-e711-8122-000d3aa2331c',
      organizationId: '4ef5b371-e89e-e711-8122-000d3aa2331c',
      // /Date(1506409448000-0700)/: the milliseconds are UTC; the offset is only the sender's zone.
      operationCreatedOn: new Date(1506409448000),
      postImage: { fullname: 'James Glynn (sample)', contactid: '6d81597f-0f9f-e711-8122-000d3aa2331c' },
      targetAttributes: {
        firstname: 'James',
        contactid: '6d81597f-0f9f-e711-8122-000d3aa2331c',
        fullname: 'James Glynn (sample)',
        yomifullname: 'James Glynn (sample)',
        modifiedon: '2017-09-26T00:04:07.000Z',
        modifiedby: '75c2dd85-e89e-e711-8122-000d3aa2331c',
        _modifiedby_value: '75c2dd85-e89e-e711-8122-000d3aa2331c',
        modifiedonbehalfby: null,
      },
    });
  });

  it('gives choices and money as their number, lookups also under their Web API name, in lower case', () => {
    const event = readRemoteExecutionContext(dataverseEvent('create-account-post-image'));
    expect(event.postImage).toEqual({
      accountid: 'a1b2c3d4-0000-4000-8000-000000000001',
      name: 'Contoso Ltd',
      address1_city: ' Redmond ',
      industrycode: 7,
      revenue: 125000.5,
      primarycontactid: '6d81597f-0f9f-e711-8122-000d3aa2331c',
      _primarycontactid_value: '6d81597f-0f9f-e711-8122-000d3aa2331c',
      modifiedon: '2025-12-06T00:00:00.000Z',
    });
  });

  it('reads a Delete (Target is a reference, no image) and a context whose parameters and images Dataverse removed for size', () => {
    const deleted = readRemoteExecutionContext(dataverseEvent('delete-account'));
    expect(deleted).toMatchObject({ messageName: 'Delete', entityName: 'account', id: 'a1b2c3d4-0000-4000-8000-000000000001' });
    expect(deleted.postImage).toBeUndefined();
    expect(deleted.targetAttributes).toBeUndefined();
    const big = readRemoteExecutionContext(dataverseEvent('update-account-size-exceeded'));
    expect(big.postImage).toBeUndefined();
    expect(big.targetAttributes).toBeUndefined();
  });

  it('names the first property that is missing or wrong', () => {
    const without = (key: string, value?: unknown) => {
      const body = dataverseEvent('delete-account');
      if (value === undefined) delete body[key];
      else body[key] = value;
      return () => readRemoteExecutionContext(body);
    };
    expect(without('MessageName')).toThrow('$.MessageName: missing');
    expect(without('PrimaryEntityId', 'not-a-guid')).toThrow('$.PrimaryEntityId: expected a GUID, got "not-a-guid"');
    expect(without('OperationCreatedOn', '2025-12-06T00:00:00Z')).toThrow('$.OperationCreatedOn: expected a date as /Date(milliseconds)/');
    expect(without('PostEntityImages', { key: 'x' })).toThrow('$.PostEntityImages: expected a list of { key, value }');
    expect(() => readRemoteExecutionContext([])).toThrow('$: expected a RemoteExecutionContext object');
  });

  it('parses data-contract dates with and without an offset, and nothing else', () => {
    expect(parseWcfDate('/Date(1506384247000)/')?.toISOString()).toBe('2017-09-26T00:04:07.000Z');
    expect(parseWcfDate('/Date(1506409448000-0700)/')?.toISOString()).toBe('2017-09-26T07:04:08.000Z');
    expect(parseWcfDate('/Date(-1000+0100)/')?.toISOString()).toBe('1969-12-31T23:59:59.000Z');
    expect(parseWcfDate('Date(1)')).toBeUndefined();
  });
});
