// The two stores of SPEC §2 (password hashes and user info, each a Map from
// user name to a value) and how a cluster shares them (SPEC §5). Like the
// thesis' StoreInterface, handlers see one async interface: a MemoryStore in a
// single process, or a ClusterStore in a worker, which reaches the primary's
// MemoryStore over the cluster IPC channel with a request id per call.

import type { Cluster, Worker } from 'node:cluster';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [member: string]: JsonValue;
}

export interface Store {
  getPassword(user: string): Promise<string | undefined>;
  setPassword(user: string, hash: string): Promise<void>;
  getUser(user: string): Promise<JsonObject | undefined>;
  setUser(user: string, info: JsonObject): Promise<void>;
}

/** The maps themselves. Each call does its work synchronously, before it returns its promise. */
export class MemoryStore implements Store {
  readonly #passwords = new Map<string, string>();
  readonly #users = new Map<string, JsonObject>();

  async getPassword(user: string) {
    return this.#passwords.get(user);
  }

  async setPassword(user: string, hash: string) {
    this.#passwords.set(user, hash);
  }

  async getUser(user: string) {
    return this.#users.get(user);
  }

  async setUser(user: string, info: JsonObject) {
    this.#users.set(user, info);
  }
}

/** One store call as it crosses the IPC channel: a method of Store and its arguments. */
type StoreCall =
  | { op: 'getPassword'; user: string }
  | { op: 'setPassword'; user: string; hash: string }
  | { op: 'getUser'; user: string }
  | { op: 'setUser'; user: string; info: JsonObject };

// Messages are tagged so that the store's traffic can share the channel with anything else.
const TAG = 'concur-store';
interface Request {
  tag: typeof TAG;
  id: number;
  call: StoreCall;
}
interface Reply {
  tag: typeof TAG;
  id: number;
  value?: JsonValue;
}

const isReply = (msg: unknown): msg is Reply => (msg as Reply | null)?.tag === TAG;
const isRequest = (msg: unknown): msg is Request => (msg as Request | null)?.tag === TAG;

/** The part of `process` a worker talks to its primary through. */
export interface Channel {
  send?: ((message: Request) => unknown) | undefined;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'disconnect', listener: () => void): unknown;
}

/**
 * A worker's view of the primary's store. A `set` resolves only after the
 * primary applied it, so once the HTTP response is written any other
 * worker's later `get` sees the value.
 */
export class ClusterStore implements Store {
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  readonly #channel: Channel;
  #nextId = 0;

  constructor(channel: Channel = process) {
    this.#channel = channel;
    channel.on('message', (msg) => {
      if (!isReply(msg)) return;
      this.#pending.get(msg.id)?.resolve(msg.value);
      this.#pending.delete(msg.id);
    });
    channel.once('disconnect', () => {
      for (const { reject } of this.#pending.values()) reject(new Error('the cluster primary is gone'));
      this.#pending.clear();
    });
  }

  getPassword(user: string) {
    return this.#call<string | undefined>({ op: 'getPassword', user });
  }

  setPassword(user: string, hash: string) {
    return this.#call<void>({ op: 'setPassword', user, hash });
  }

  getUser(user: string) {
    return this.#call<JsonObject | undefined>({ op: 'getUser', user });
  }

  setUser(user: string, info: JsonObject) {
    return this.#call<void>({ op: 'setUser', user, info });
  }

  #call<T>(call: StoreCall): Promise<T> {
    if (!this.#channel.send) return Promise.reject(new Error('this process has no IPC channel to a cluster primary'));
    const id = ++this.#nextId;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#channel.send?.({ tag: TAG, id, call });
    });
  }
}

/** In the primary: answers every worker's store calls from `store`, in the order they arrive. */
export function serveStore(cluster: Cluster, store: MemoryStore): void {
  cluster.on('message', async (worker: Worker, msg: unknown) => {
    if (!isRequest(msg)) return;
    const reply: Reply = { tag: TAG, id: msg.id };
    const value = await apply(store, msg.call);
    if (value !== undefined) reply.value = value;
    if (worker.isConnected()) worker.send(reply);
  });
}

function apply(store: Store, call: StoreCall): Promise<JsonValue | undefined | void> {
  switch (call.op) {
    case 'getPassword':
      return store.getPassword(call.user);
    case 'setPassword':
      return store.setPassword(call.user, call.hash);
    case 'getUser':
      return store.getUser(call.user);
    case 'setUser':
      return store.setUser(call.user, call.info);
  }
}
