/**
 * The start-up V8 flags meshd runs with: `bin/pilot-discovery` passes them to its launcher (a test holds the two
 * equal), and benchmarks that run meshd's code in a process of their own start it with them too.
 * NOTE: a 16 MB semi-space bounds the young generation (Node 24 sizes it from the heap limit, up to 64 MB per
 * semi-space): scavenges stay a few milliseconds, which the xDS push path and the CA's p99 latency need.
 */
export const MESHD_V8_FLAGS: readonly string[] = Object.freeze(['--max-semi-space-size=16']);
