import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './address-guard.ts';

describe('isPrivateAddress', () => {
  it('lets public IPv4 and IPv6 addresses through (an IPv4-mapped one as its IPv4 address)', () => {
    for (const address of ['1.1.1.1', '8.8.8.8', '140.82.112.3', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:1.1.1.1']) {
      expect({ address, private: isPrivateAddress(address) }).toEqual({ address, private: false });
    }
  });

  it('refuses private, local and reserved addresses, and IPv6 forms that carry an IPv4 one', () => {
    for (const address of [
      '0.0.0.0',
      '10.0.0.1',
      '100.64.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.16.5.5',
      '192.0.2.1',
      '192.168.1.10',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '::127.0.0.1',
      '::1.1.1.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      '2001:0:a00:1::1',
      'not an address',
      '',
    ]) {
      expect({ address, private: isPrivateAddress(address) }).toEqual({ address, private: true });
    }
  });
});
