//! The two in-memory stores (SPEC §2, §5): a `HashMap` behind an `RwLock`,
//! shared by every pool thread. A write is in the map before its response is
//! written, so every later request on any connection sees it.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

#[derive(Debug)]
pub struct Store<V> {
    map: RwLock<HashMap<String, V>>,
}

impl<V> Default for Store<V> {
    fn default() -> Self {
        Store { map: RwLock::new(HashMap::new()) }
    }
}

impl<V> Store<V> {
    /// Stores `value` under `key`, replacing any earlier one.
    pub fn set(&self, key: &str, value: V) {
        // A handler that panicked cannot have left a map half-written (insert
        // completes or aborts), so a poisoned lock is still a good map.
        self.map.write().unwrap_or_else(PoisonError::into_inner).insert(key.to_string(), value);
    }

    /// `f` applied to the value under `key`, under the read lock (other
    /// readers go on meanwhile).
    pub fn read<R>(&self, key: &str, f: impl FnOnce(&V) -> R) -> Option<R> {
        self.map.read().unwrap_or_else(PoisonError::into_inner).get(key).map(f)
    }
}
