/** A minimal typed event emitter: `on` returns the function that removes the listener. */
export class Emitter<E extends object> {
  private readonly listeners = new Map<keyof E, Set<(payload: never) => void>>();

  /** Calls `fn` with each `type` event until the returned function is called. */
  on<K extends keyof E>(type: K, fn: (payload: E[K]) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn as (payload: never) => void);
    return () => set.delete(fn as (payload: never) => void);
  }

  /** Calls every listener of `type`; a throwing listener does not stop the others. */
  emit<K extends keyof E>(type: K, payload: E[K]): void {
    for (const fn of [...(this.listeners.get(type) ?? [])]) {
      try {
        (fn as (payload: E[K]) => void)(payload);
      } catch (err) {
        reportError(err);
      }
    }
  }
}
