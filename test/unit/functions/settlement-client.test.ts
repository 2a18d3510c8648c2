import { hostAddress } from '../../../functions/support/settlement-client';
import { encodeSettlementRequest } from '../../../functions/support/settlement-wire';

describe("the host's gRPC address from the worker's command line", () => {
  // As the host starts a language worker (RpcWorkerProcess): both forms, the new one first choice.
  const HOST_ARGS = ['--host', '127.0.0.1', '--port', '50821', '--workerId', 'w-1', '--requestId', 'r-1', '--grpcMaxMessageLength', '2147483647'];

  it('prefers --functions-uri', () => {
    expect(hostAddress([...HOST_ARGS, '--functions-uri', 'http://127.0.0.1:50822/', '--functions-worker-id', 'w-1', '--functions-grpc-max-message-length', '2147483647'])).toBe(
      '127.0.0.1:50822',
    );
  });

  it('falls back to --host and --port', () => {
    expect(hostAddress(HOST_ARGS)).toBe('127.0.0.1:50821');
  });

  it('names what is missing outside the Functions host', () => {
    expect(() => hostAddress(['--port', '1'])).toThrow(
      "Service Bus settlement: the worker's command line has neither --functions-uri nor --host and --port (is this process started by the Functions host?)",
    );
  });
});

describe('Settlement request bytes (protobuf)', () => {
  it('writes the lock token as field 1 and leaves empty fields out', () => {
    expect(encodeSettlementRequest({ lockToken: 'ab' }).toString('hex')).toBe('0a026162');
    expect(encodeSettlementRequest({ lockToken: 'ab', propertiesToModify: new Uint8Array() }).toString('hex')).toBe('0a026162');
  });

  it('writes properties as field 2 and reason and description as StringValue messages 3 and 4', () => {
    const bytes = encodeSettlementRequest({ lockToken: 'a', propertiesToModify: Uint8Array.from([0xc1, 0x01, 0x00]), deadLetterReason: 'R', deadLetterErrorDescription: '' });
    expect(bytes.toString('hex')).toBe(['0a0161', '1203c10100', '1a030a0152', '2200'].join(''));
  });

  it('writes lengths of 128 bytes and more as multi-byte varints', () => {
    const bytes = encodeSettlementRequest({ lockToken: 'x'.repeat(300) });
    expect(bytes.subarray(0, 3).toString('hex')).toBe('0aac02');
    expect(bytes.length).toBe(303);
  });
});
