// The two stores of SPEC §2 (passwords and users, each a Map from user name
// to a value) and how a cluster shares them (SPEC §5): the primary owns the
// one MemoryStore and answers requests from its workers, which reach it over
// the cluster IPC channel with a ClusterStore. Handlers `await` either kind.

const TAG = 'concur-store';

/** The maps themselves; synchronous, used directly by a single process. */
export class MemoryStore {
  #maps = { passwords: new Map(), users: new Map() };

  get(map, key) {
    return this.#maps[map].get(key);
  }

  set(map, key, value) {
    this.#maps[map].set(key, value);
  }
}

/**
 * A worker's view of the primary's store: every call is one IPC message with
 * a request id, and the promise settles when the primary's answer comes back.
 * A `set` resolves only after the primary applied it, so once the HTTP
 * response is written any other worker's later `get` sees the value.
 */
export class ClusterStore {
  #pending = new Map();
  #nextId = 0;
  #channel;

  constructor(channel = process) {
    this.#channel = channel;
    channel.on('message', (msg) => {
      if (msg?.tag !== TAG) return;
      this.#pending.get(msg.id)?.resolve(msg.value);
      this.#pending.delete(msg.id);
    });
    channel.once('disconnect', () => {
      for (const { reject } of this.#pending.values()) reject(new Error('the cluster primary is gone'));
      this.#pending.clear();
    });
  }

  get(map, key) {
    return this.#call({ op: 'get', map, key });
  }

  set(map, key, value) {
    return this.#call({ op: 'set', map, key, value });
  }

  #call(request) {
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#channel.send({ tag: TAG, id, ...request });
    });
  }
}

/** In the primary: answers every worker's store messages from `store`. */
export function serveStore(cluster, store) {
  cluster.on('message', (worker, msg) => {
    if (msg?.tag !== TAG) return;
    const value = msg.op === 'set' ? store.set(msg.map, msg.key, msg.value) : store.get(msg.map, msg.key);
    worker.send({ tag: TAG, id: msg.id, value });
  });
}
