// The two stores of SPEC §2 (passwords and users, each a Map from user name
// to a value) and how the serving workers share them (SPEC §5): the main
// thread owns the one MemoryStore and answers requests from its workers, which
// reach it with postMessage through a WorkerStore. Handlers `await` either kind.

export type MapName = 'passwords' | 'users';

export interface Store {
  get(map: MapName, key: string): unknown | Promise<unknown>;
  set(map: MapName, key: string, value: unknown): void | Promise<void>;
}

const TAG = 'concur-store';

type StoreRequest = { tag: typeof TAG; id: number; op: 'get' | 'set'; map: MapName; key: string; value?: unknown };
type StoreReply = { tag: typeof TAG; id: number; value: unknown };

/** The maps themselves; synchronous, used directly by the thread that owns them. */
export class MemoryStore implements Store {
  #maps: Record<MapName, Map<string, unknown>> = { passwords: new Map(), users: new Map() };

  get(map: MapName, key: string): unknown {
    return this.#maps[map].get(key);
  }

  set(map: MapName, key: string, value: unknown): void {
    this.#maps[map].set(key, value);
  }
}

/** Either end of a worker's message channel: the worker's `self` or the main thread's `Worker`. */
export interface Channel {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

/**
 * A worker's view of the main thread's store: every call is one message with
 * a request id, and the promise settles when the owner's answer comes back.
 * A `set` resolves only after the owner applied it, so once the HTTP response
 * is written any other worker's later `get` sees the value. Values cross the
 * channel by structured clone, as postMessage carries them.
 */
export class WorkerStore implements Store {
  #pending = new Map<number, (value: unknown) => void>();
  #nextId = 0;

  constructor(private readonly channel: Channel) {
    channel.addEventListener('message', ({ data }: MessageEvent) => {
      if ((data as StoreReply | undefined)?.tag !== TAG) return;
      const reply = data as StoreReply;
      this.#pending.get(reply.id)?.(reply.value);
      this.#pending.delete(reply.id);
    });
  }

  get(map: MapName, key: string): Promise<unknown> {
    return this.#call({ op: 'get', map, key });
  }

  async set(map: MapName, key: string, value: unknown): Promise<void> {
    await this.#call({ op: 'set', map, key, value });
  }

  #call(request: Omit<StoreRequest, 'tag' | 'id'>): Promise<unknown> {
    const id = ++this.#nextId;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.channel.postMessage({ tag: TAG, id, ...request });
    });
  }
}

/** In the owner: answers every store message that `worker` sends from `store`. */
export function serveStore(worker: Channel, store: MemoryStore): void {
  worker.addEventListener('message', ({ data }: MessageEvent) => {
    if ((data as StoreRequest | undefined)?.tag !== TAG) return;
    const { id, op, map, key, value } = data as StoreRequest;
    const result = op === 'set' ? store.set(map, key, value) : store.get(map, key);
    worker.postMessage({ tag: TAG, id, value: result });
  });
}
