import { describe, expect, it } from 'vitest';
import { scramClient } from './scram.js';

describe('SCRAM, the client side', () => {
  it("when run on RFC 7677's example, then it sends the RFC's messages and accepts its server", () => {
    const client = scramClient('sha256', 'user', 'pencil', 'rOprNGfwEbeRWgbNEkqO');
    expect(client.first).toBe('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    const final = client.final(
      'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
    );
    expect(final).toBe(
      'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
    );
    expect(() => client.verify('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')).not.toThrow();
  });

  it('when the server does not know the password, does not take the nonce on, or refuses, then it is said', () => {
    const client = scramClient('sha512', 'a=b,c', 'secret', 'nonce');
    expect(client.first).toBe('n,,n=a=3Db=2Cc,r=nonce');
    expect(() => client.final('r=other,s=c2FsdA==,i=4096')).toThrow(/not one/);
    client.final('r=nonceSERVER,s=c2FsdA==,i=4096');
    expect(() => client.verify('v=AAAA')).toThrow(/does not know the password/);
    expect(() => client.verify('e=invalid-proof')).toThrow(
      'SCRAM: the server refused: invalid-proof',
    );
  });
});
