/**
 * The cancel switch: one per process. Once the run is being cancelled (the native plugin's
 * Cancel), every wait of the client (a retry's backoff, the pacer's turn, a look for an uncertain
 * write) ends at once and nothing more is sent. Its own module so that the pacer, the retry loop
 * and native/ share it without reaching into the retry policy.
 */

/** Why waits end early: said in the errors of requests that were waiting. */
export const STOPPING = "the run is being cancelled";
let stopped = false;
const waking = new Set<() => void>();

/** Waits `ms`; resolves false at once, and for every later wait, once `stopWaiting` was called. */
export function pause(ms: number): Promise<boolean> {
    if (stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
        const wake = () => {
            clearTimeout(timer);
            waking.delete(wake);
            resolve(!stopped);
        };
        const timer = setTimeout(wake, ms);
        waking.add(wake);
    });
}

/** Whether `stopWaiting` was called: the run is being cancelled, and nothing more is sent. */
export function waitsStopped(): boolean {
    return stopped;
}

/** Ends every wait of this process now and every later one at once: the run is being cancelled
 *  (the native plugin's Cancel), so nothing more is worth waiting for. */
export function stopWaiting(): void {
    stopped = true;
    for (const wake of [...waking]) wake();
}
