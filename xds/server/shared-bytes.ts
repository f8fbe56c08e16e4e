/**
 * The memory of bytes many responses send (resource-sections.ts), freed as soon as nothing can send it any more.
 *
 * A section is sent without being copied (framed-send.ts), so its memory is in use until the last write of it has
 * completed. Left to the garbage collector, the sections of earlier pushes stayed until a full collection: +25 MB of
 * peak RSS over nine edits at S=100/N=100 over SotW (measured), where frames of their own were freed after their
 * write (releaseFrame). Here a section counts its users: each response made with it until that response's first write
 * starts, then each write until it completes. Once its owner retires it (no longer hands it out) and no user is left,
 * its memory goes. A response never written keeps its count, and the section is then left to the collector: a
 * section is never freed while something may still send it.
 */

interface Users {
  count: number;
  retired: boolean;
}

const users = new WeakMap<Buffer, Users>();
/** Responses whose first write has started (their claim became that write's). */
const writing = new WeakSet<object>();

/** Registers `bytes` (memory of its own: freed whole) as shared, with no users yet. */
export function share(bytes: Buffer): void {
  if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) throw new RangeError('shared bytes must own their whole ArrayBuffer (freeing them frees it)');
  users.set(bytes, { count: 0, retired: false });
}

/** Whether `bytes` are shared bytes that have not been freed. */
export function isShared(bytes: Buffer): boolean {
  return users.has(bytes);
}

/** A response was made that will send `bytes` (released by its first write's start, or never). */
export function claim(bytes: Buffer): void {
  const u = users.get(bytes);
  if (u) u.count++;
}

/**
 * A write of `response` is starting and will send `shared`: each gets a user until `endWrite`. On the response's
 * first write its claims end.
 */
export function beginWrite(response: object, shared: readonly Buffer[]): void {
  const first = !writing.has(response);
  writing.add(response);
  for (const b of shared) {
    const u = users.get(b);
    if (u && !first) u.count++;
  }
}

/** A write that `beginWrite` announced has completed or failed: the bytes are no longer read by it. */
export function endWrite(shared: readonly Buffer[]): void {
  for (const b of shared) {
    const u = users.get(b);
    if (!u) continue;
    u.count--;
    freeIfUnused(b, u);
  }
}

/** The owner no longer hands `bytes` out: freed once the last user is done. */
export function retire(bytes: Buffer): void {
  const u = users.get(bytes);
  if (!u) return;
  u.retired = true;
  freeIfUnused(bytes, u);
}

function freeIfUnused(bytes: Buffer, u: Users): void {
  if (!u.retired || u.count > 0) return;
  users.delete(bytes);
  // NOTE: transfer(0) detaches the ArrayBuffer, which drops its memory (the bytes own all of it).
  (bytes.buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
}
