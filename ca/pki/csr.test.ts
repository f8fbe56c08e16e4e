import assert from 'node:assert/strict';
import { CsrError, decodeCsrPem } from './csr.js';

// NOTE: a fuzz finding (npm run fuzz -- --surface ca, seed 1925, input 35707): an RSA CSR whose extensionRequest holds
// an empty Extension SEQUENCE (30 00) before the subjectAltName; decoding it threw a TypeError.
const EMPTY_EXTENSION_CSR = [
  '-----BEGIN CERTIFICATE REQUEST-----',
  'MIICkDCCAXgCAQAwADCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAJyQ',
  'lz8zmHfLA2dPGxKps7gLXCBjvgJPHhNUAyDGNqLn0Kqdj7LB8X8etapNW0f+myqb',
  'eyfukeCRHwwibNA2LRIzgOylzknhPp7cEnRueLXY+jTdN456UPIkj4Ds5GHQYIhV',
  'qZ+o0gwUa54xbfiWDF2iqfEsIhBYhOozX3QEi+LSTCmhzCEUOKMYUNQ4yKD9eeO9',
  'vYB/Czxk5IbwtuYk51GauyXaLQYzEzmOkhT9Ly54adbxg9VovVLiCq6PVfy+lfxo',
  'MiglNMP9/Ywh5hYpps1TlBqRFTKcoOtuKuZ1/cc51qfrmanQRNGXrYL/BryoFE4X',
  'Z/jfgYvPGMEXxAvnXa8CAwEAAaBLMEkGCSqGSIb3DQEJDjE8MDowAAYDVR0RAQH/',
  'BC4wLIYqc3BpZmZlOi8vY2x1c3Rlci5sb2NhbC9ucy9kZWZhdWx0L3NhL3NsZWVw',
  'MA0GCSqGSIb3DQEBCwUAA4IBAQCVj3mMDkfYdDt0w/kCy0rYd7u8kvJjszGtbo1N',
  'kl6LxmApNzFufzkJq8W/YfmVFYsTzbpcYNWVM1HnDubV3TGlcMp1snV9bJh5H4fL',
  'qrpKT8Bdenmz5nOoeahMYBN5XbARCrYDvC6ekidvnvD4oNMzxXhRuYVuRC+t9yfl',
  'pZvJZ0ekCuVc7GXlnIo34y1Z9T5JMwBrJhm/6m94irOHDIgvkYobDqqpSxpu8yeH',
  'RNIzVzAD0/6M5aDVvpWyx8tODJ1JpdTsfoeVbmsBXD8tNhsWOa+A+zMWdlN1hrYB',
  'ZD6Pg/fUb7qFA+7/HftpIR9TwI2RkZ9fIC4bHvUO7DrUdsSL',
  '-----END CERTIFICATE REQUEST-----',
].join('\n');

describe('decodeCsrPem', () => {
  it('given a CSR with an empty Extension in its extensionRequest should refuse it as malformed, naming the Extension', () => {
    assert.throws(() => decodeCsrPem(EMPTY_EXTENSION_CSR), (err: unknown) =>
      err instanceof CsrError && err.reason === 'malformed' && /Extension: expected an id and a value/.test(err.message));
  });
});
