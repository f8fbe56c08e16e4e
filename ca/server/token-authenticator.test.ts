import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { ManualClock } from '../../core/index.js';
import { FakeTokenReviewer } from '../testing/fake-token-reviewer.js';
import { AuthenticationError } from './authenticator.js';
import { TokenAuthenticator, bearerToken, type TokenAuthenticatorOptions, type TokenReviewResult, type TokenReviewer } from './token-authenticator.js';

const withToken = (value: string | undefined): { metadata: grpc.Metadata; peerCertificate: undefined } => {
  const metadata = new grpc.Metadata();
  if (value !== undefined) metadata.set('authorization', value);
  return { metadata, peerCertificate: undefined };
};

describe('TokenAuthenticator', () => {
  const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
  const base: TokenAuthenticatorOptions = { trustDomain: 'td', audiences: ['mesh-ca'], require3pToken: false, jwtPolicy: 'third-party-jwt', clock };
  const exp = (): number => Math.floor(clock.wallNow() / 1000) + 3600;

  const bearerCases = [
    { name: 'given "Bearer abc" should extract abc', header: 'Bearer abc', want: 'abc' },
    { name: 'given a lower-case scheme should extract the token', header: 'bearer abc', want: 'abc' },
    { name: 'given a Basic header should find no token', header: 'Basic abc', want: undefined },
    { name: 'given no header should find no token', header: undefined, want: undefined },
  ];
  for (const c of bearerCases) it(`bearerToken: ${c.name}`, () => assert.equal(bearerToken(withToken(c.header)), c.want));

  it('given the same token twice should review it once and reuse the result', async () => {
    const reviewer = new FakeTokenReviewer(clock);
    const auth = new TokenAuthenticator(base, reviewer);
    const token = reviewer.issue({ namespace: 'ns', serviceAccount: 'sa', audiences: ['mesh-ca'], exp: exp() });
    const first = await auth.authenticate(withToken(`Bearer ${token}`));
    const second = await auth.authenticate(withToken(`Bearer ${token}`));
    assert.deepEqual(first?.identities, ['spiffe://td/ns/ns/sa/sa']);
    assert.equal(second, first);
    assert.equal(reviewer.reviews, 1);
  });

  it('given the cache bound passed before exp should review the token again', async () => {
    const reviewer = new FakeTokenReviewer(clock);
    const auth = new TokenAuthenticator({ ...base, cacheTtlMs: 60_000 }, reviewer);
    const token = reviewer.issue({ namespace: 'ns', serviceAccount: 'sa', audiences: ['mesh-ca'], exp: exp() });
    await auth.authenticate(withToken(`Bearer ${token}`));
    clock.advanceSync(61_000);
    await auth.authenticate(withToken(`Bearer ${token}`));
    assert.equal(reviewer.reviews, 2);
  });

  it('given a cached token whose exp passed should refuse it without a review', async () => {
    const reviewer = new FakeTokenReviewer(clock);
    const auth = new TokenAuthenticator(base, reviewer);
    const token = reviewer.issue({ namespace: 'ns', serviceAccount: 'sa', audiences: ['mesh-ca'], exp: Math.floor(clock.wallNow() / 1000) + 30 });
    await auth.authenticate(withToken(`Bearer ${token}`));
    clock.advanceSync(31_000);
    await assert.rejects(auth.authenticate(withToken(`Bearer ${token}`)), (err: unknown) => err instanceof AuthenticationError && /expired/.test(err.message));
    assert.equal(reviewer.reviews, 1);
  });

  it('given more tokens than the cache size should keep only the newest', async () => {
    const reviewer = new FakeTokenReviewer(clock);
    const auth = new TokenAuthenticator({ ...base, cacheSize: 2 }, reviewer);
    for (const sa of ['a', 'b', 'c']) await auth.authenticate(withToken(`Bearer ${reviewer.issue({ namespace: 'ns', serviceAccount: sa, audiences: ['mesh-ca'], exp: exp() })}`));
    assert.equal(auth.cachedReviews, 2);
  });

  it('given first-party-jwt should review without audiences and accept a token without one', async () => {
    const seen: (readonly string[] | undefined)[] = [];
    const reviewer: TokenReviewer = {
      review: (_t, audiences): Promise<TokenReviewResult> => {
        seen.push(audiences);
        return Promise.resolve({ authenticated: true, username: 'system:serviceaccount:ns:sa', extra: { 'authentication.kubernetes.io/node-name': ['node-7'] } });
      },
    };
    const fake = new FakeTokenReviewer(clock);
    const caller = await new TokenAuthenticator({ ...base, jwtPolicy: 'first-party-jwt' }, reviewer)
      .authenticate(withToken(`Bearer ${fake.issue({ namespace: 'ns', serviceAccount: 'sa' })}`));
    assert.deepEqual(seen, [undefined]);
    assert.equal(caller?.kubernetes?.nodeName, 'node-7', 'node name from the TokenReview extra');
  });

  it('given a token that is not a JWT should refuse naming the problem', async () => {
    await assert.rejects(new TokenAuthenticator(base, new FakeTokenReviewer(clock)).authenticate(withToken('Bearer not-a-jwt')),
      (err: unknown) => err instanceof AuthenticationError && /not a JWT/.test(err.message));
  });

  it('given a payload that is not JSON and holds a newline should refuse it on one printable line', async () => {
    const token = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"sub": \nWT"}').toString('base64url')}.x`;
    await assert.rejects(new TokenAuthenticator(base, new FakeTokenReviewer(clock)).authenticate(withToken(`Bearer ${token}`)),
      (err: unknown) => err instanceof AuthenticationError && /JWT payload is not JSON/.test(err.message) && !/[\n\r]/.test(err.message));
  });
});
