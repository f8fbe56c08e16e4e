/** The error of reaching a pod: a bad target, nothing to reach, or a dial that failed. */
export class ReachError extends Error {
  override readonly name = 'ReachError';
}
