// The two stores of SPEC §2 (passwords and users, each a Map from user name
// to a value) and how several processes share them (SPEC §5): the primary
// owns the one MemoryStore and answers its workers, which reach it over the
// ipc channel Bun.spawn opened, with an IpcStore. Handlers `await` either kind.

export type MapName = "passwords" | "users";

export interface Store {
  get(map: MapName, key: string): unknown | Promise<unknown>;
  set(map: MapName, key: string, value: unknown): void | Promise<void>;
}

/** One store call over ipc; Bun's "advanced" serialization carries the value as a structured clone. */
export type StoreRequest =
  | { tag: typeof TAG; id: number; op: "get"; map: MapName; key: string }
  | { tag: typeof TAG; id: number; op: "set"; map: MapName; key: string; value: unknown };
export type StoreReply = { tag: typeof TAG; id: number; value: unknown };

const TAG = "concur-store";

/** The maps themselves; synchronous, used directly by a single process and by the primary. */
export class MemoryStore implements Store {
  readonly #maps: Record<MapName, Map<string, unknown>> = { passwords: new Map(), users: new Map() };

  get(map: MapName, key: string): unknown {
    return this.#maps[map].get(key);
  }

  set(map: MapName, key: string, value: unknown): void {
    this.#maps[map].set(key, value);
  }

  /** The primary's answer to one worker message, or undefined when it is not a store call. */
  answer(message: unknown): StoreReply | undefined {
    const msg = message as StoreRequest;
    if (msg?.tag !== TAG) return undefined;
    const value = msg.op === "set" ? this.set(msg.map, msg.key, msg.value) : this.get(msg.map, msg.key);
    return { tag: TAG, id: msg.id, value };
  }
}

/**
 * A worker's view of the primary's store: every call is one ipc message with
 * a request id, and the promise settles when the primary's answer comes back.
 * A `set` resolves only after the primary applied it, so once the HTTP
 * response is written any other worker's later `get` sees the value.
 */
export class IpcStore implements Store {
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  #nextId = 0;

  constructor(private readonly channel: NodeJS.Process = process) {
    channel.on("message", (message: unknown) => {
      const msg = message as StoreReply;
      if (msg?.tag !== TAG) return;
      this.#pending.get(msg.id)?.resolve(msg.value);
      this.#pending.delete(msg.id);
    });
    channel.once("disconnect", () => {
      for (const { reject } of this.#pending.values()) reject(new Error("the primary process is gone"));
      this.#pending.clear();
    });
  }

  get(map: MapName, key: string): Promise<unknown> {
    return this.#call({ tag: TAG, id: ++this.#nextId, op: "get", map, key });
  }

  async set(map: MapName, key: string, value: unknown): Promise<void> {
    await this.#call({ tag: TAG, id: ++this.#nextId, op: "set", map, key, value });
  }

  #call(request: StoreRequest): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#pending.set(request.id, { resolve, reject });
      this.channel.send!(request);
    });
  }
}
