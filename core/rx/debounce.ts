/**
 * debouncePushes: merges a stream of PushRequests into fewer, larger ones (Istio's debounce).
 *
 * ```
 * source:  -a-b---c---------------d-|
 * quiet 3  ------------(abc)-------(d|)   (window ceiling `debounceMax` forces a push under a constant stream)
 * ```
 *
 * A request opens a window; each later request restarts the quiet period `debounceAfter`. When no
 * request arrived for `debounceAfter`, or `debounceMax` passed since the window opened, the merged
 * request is emitted. EDS-only requests (`full: false`) bypass the window when `enableEdsDebounce`
 * is false. On completion the pending request is flushed first; on unsubscribe the timer is cleared.
 *
 * @example
 * configChanges$.pipe(debouncePushes({ debounceAfter: 100, debounceMax: 10_000, enableEdsDebounce: true }))
 */
import { Observable, asyncScheduler, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import { mergePushRequests, type PushRequest } from '../model/push-request.js';

/** Hooks the operator calls; the pipeline maps them to metrics. */
export interface DebounceObserver {
  /** A request entered the operator (pilot_inbound_updates). */
  onInput?(req: PushRequest): void;
  /** A merged request left it; `waitedMs` since the first merged change (pilot_debounce_time, pilot_push_triggers). */
  onOutput?(req: PushRequest, waitedMs: number): void;
}

/** Options of debouncePushes. Durations in milliseconds. */
export interface DebounceOptions {
  /** PILOT_DEBOUNCE_AFTER: quiet period. 0 disables debouncing (every request passes through). */
  readonly debounceAfter: number;
  /** PILOT_DEBOUNCE_MAX: the longest a window stays open. */
  readonly debounceMax: number;
  /** PILOT_ENABLE_EDS_DEBOUNCE: whether EDS-only requests wait in the window too. */
  readonly enableEdsDebounce: boolean;
  /** Defaults to rxjs `asyncScheduler`; tests pass a TestScheduler. */
  readonly scheduler?: SchedulerLike;
  readonly observer?: DebounceObserver;
  /**
   * The recorded decisions of a replay: given, no timer runs and the window closes (its merged request
   * is emitted) each time this emits. NOTE: live timers fire late by however busy the loop is, so an
   * input stamped after a window's due time may still have joined it; a replay that re-ran the timers on
   * a virtual clock would close that window earlier than the live run did.
   */
  readonly flushes?: Observable<unknown>;
}

/** The debounce operator; see the file comment. */
export function debouncePushes(opts: DebounceOptions): OperatorFunction<PushRequest, PushRequest> {
  const scheduler = opts.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<PushRequest>((subscriber) => {
      let pending: PushRequest | undefined;
      let windowStart = 0;
      let lastUpdate = 0;
      let timer: Subscription | undefined;

      const emit = (req: PushRequest, waitedMs: number): void => {
        opts.observer?.onOutput?.(req, waitedMs);
        subscriber.next(req);
      };
      const flush = (): void => {
        timer?.unsubscribe();
        timer = undefined;
        const req = pending;
        pending = undefined;
        if (req) emit(req, scheduler.now() - windowStart);
      };
      const check = (): void => {
        timer = undefined;
        const now = scheduler.now();
        const quiet = now - lastUpdate;
        const open = now - windowStart;
        if (quiet >= opts.debounceAfter || open >= opts.debounceMax) {
          flush();
          return;
        }
        // NOTE: wake when the quiet period would end, but never after the ceiling.
        const wait = Math.min(opts.debounceAfter - quiet, opts.debounceMax - open);
        timer = scheduler.schedule(check, wait);
      };

      const flushSub = opts.flushes?.subscribe(() => flush());
      const sub = source.subscribe({
        next(req) {
          opts.observer?.onInput?.(req);
          if (opts.debounceAfter <= 0 || (!req.full && !opts.enableEdsDebounce)) {
            emit(req, 0);
            return;
          }
          const now = scheduler.now();
          lastUpdate = now;
          if (!pending) {
            windowStart = now;
            pending = req;
            if (!opts.flushes) timer = scheduler.schedule(check, opts.debounceAfter);
          } else {
            pending = mergePushRequests(pending, req);
          }
        },
        error(err: unknown) {
          timer?.unsubscribe();
          subscriber.error(err);
        },
        complete() {
          flush();
          subscriber.complete();
        },
      });
      return () => {
        timer?.unsubscribe();
        flushSub?.unsubscribe();
        sub.unsubscribe();
      };
    });
}
