// The one clock: see clock.ts for which reading to use.
export { sleepOnTimer, type CancelTimer, type Clock, type TimerOptions } from './clock.js';
export { SystemClock, systemClock } from './system-clock.js';
export { ManualClock } from './manual-clock.js';
export { clockScheduler } from './clock-scheduler.js';
export { timeoutSignal } from './timeout-signal.js';
