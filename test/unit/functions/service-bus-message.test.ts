import { toBusMessage } from '../../../functions/support/service-bus-message';
import { bindHostMessage, type HostMessage, useSettlementEndpoint } from './support/sdk-binding';

const HOST_MESSAGE: HostMessage = {
  body: JSON.stringify({ version: 1, jobName: 'crm-accounts', sourceKey: 'A-1' }),
  messageId: '0f3c9a2b7d4e4f0a9b1c2d3e4f5a6b7c',
  subject: 'crm-accounts',
  correlationId: 'corr-1',
  contentType: 'application/json',
  applicationProperties: { JobName: 'crm-accounts', SourceKey: 'A-1', Attempt: 2 },
  deliveryCount: 1,
  enqueuedTime: new Date('2026-03-01T08:00:00.123Z'),
  sequenceNumber: 42,
  timeToLiveMs: 14 * 24 * 3600 * 1000,
  lockToken: '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
};

/** Decoded by the registered factory (ours: functions/support/service-bus-extension.ts), reached the way @azure/functions reaches it. */
describe('Service Bus SDK binding → port message', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = useSettlementEndpoint(1); // never called here: only the client object is built
  });
  afterAll(() => restore());

  it('decodes the host message and converts it for the processor', () => {
    const { messages } = bindHostMessage(HOST_MESSAGE);
    const sdk = Array.isArray(messages) ? messages[0] : messages;
    expect(sdk.lockToken).toBe(HOST_MESSAGE.lockToken);

    const message = toBusMessage(sdk, 'sbqhigh');
    expect(JSON.parse(Buffer.from(message.body).toString('utf8'))).toEqual(JSON.parse(HOST_MESSAGE.body));
    expect(message).toMatchObject({
      messageId: HOST_MESSAGE.messageId,
      subject: 'crm-accounts',
      correlationId: 'corr-1',
      contentType: 'application/json',
      applicationProperties: { JobName: 'crm-accounts', SourceKey: 'A-1', Attempt: 2 },
      sequenceNumber: '42',
      deliveryCount: 1,
      enqueuedTime: HOST_MESSAGE.enqueuedTime,
      expiresAt: new Date(HOST_MESSAGE.enqueuedTime.getTime() + (HOST_MESSAGE.timeToLiveMs ?? 0)),
    });
  });

  it('takes the host delivery count as it is (it already counts the current delivery)', () => {
    const { messages } = bindHostMessage({ ...HOST_MESSAGE, deliveryCount: 4 });
    expect(toBusMessage(Array.isArray(messages) ? messages[0] : messages, 'sbqhigh').deliveryCount).toBe(4);
  });

  it('keeps a text body byte for byte', () => {
    const { messages } = bindHostMessage({ ...HOST_MESSAGE, contentType: 'text/plain', body: 'not json' });
    expect(Buffer.from(toBusMessage(Array.isArray(messages) ? messages[0] : messages, 'sbqlow').body).toString('utf8')).toBe('not json');
  });
});
