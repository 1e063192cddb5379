//! What concur needs from the machine and the checkout it runs in, asked
//! in one place so that every stage asks the same way: CPU affinity
//! (`affinity`), the CPUs' physical cores and NUMA nodes (`topology`),
//! process groups, their registry and their accounting in
//! `/proc` (`groups`, `procstat`), what a measured process inherits of concur's environment
//! (`inherit`), the open-file limit (`limits`), loopback ports (`net`), the environment
//! a run records and its timestamps (`env`), the one Ctrl-C handler
//! (`interrupt`) and what it means to most commands, progress lines on a terminal
//! (`progress`), named profile files (`profile`), the user a child runs as
//! (`user`), work spread over a few threads (`parallel`), durations as people type them (`duration`), and the small
//! deterministic hashes and sequences results depend on (`digest`). `run`,
//! `micro`, `load`, `server` and `verify` call it; it calls none of them.

pub mod affinity;
pub mod digest;
pub mod duration;
pub mod env;
pub mod groups;
pub mod guard;
pub mod inherit;
pub mod interrupt;
pub mod limits;
pub mod parallel;
pub mod net;
pub mod procstat;
pub mod profile;
pub mod progress;
pub mod topology;
pub mod user;
