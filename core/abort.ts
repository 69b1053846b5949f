/**
 * `promise`, or a rejection with the signal's reason as soon as the signal
 * fires, whether or not the work behind the promise honours the signal (a
 * fetch in flight, a pending stream read, a search in a worker). The promise
 * left behind has its rejection handled.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {})
      reject(signal.reason)
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

/**
 * `promise`, or a rejection with `reason()` once `ms` have passed without it
 * settling (the work behind it is not stopped: use it where the work cannot
 * be, such as an IndexedDB request).
 */
export function withinMs<T>(promise: Promise<T>, ms: number, reason: () => unknown): Promise<T> {
  const ctrl = new AbortController()
  const timer = setTimeout(() => ctrl.abort(reason()), ms)
  return untilAborted(promise, ctrl.signal).finally(() => clearTimeout(timer))
}
