//! The cluster's configuration for benchmarking, written into every data
//! folder (appended to `postgresql.conf`, so the folder explains itself),
//! and its client authentication. The durability settings are
//! TechEmpower's (`toolset/databases/postgres/postgresql-min.conf`):
//! commits do not wait for their WAL to reach the disk, and no WAL is kept
//! for replicas. `fsync` stays on, as there.

/// Appended to `postgresql.conf` by `initdb`'s defaults; the port is given on the command line.
pub const SETTINGS: &str = "
# ---- concur: the benchmarking settings (src/db/config.rs) ----
# Loopback only, TCP only: every client reaches the cluster by CONCUR_DB_URL,
# and no socket file is needed in /var/run/postgresql.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
# CONCUR_DB_POOL is at most a few hundred; the verifier's and concur's own
# connections come on top (TechEmpower allows 2000 for its 512 clients).
max_connections = 500
# TechEmpower's durability: a commit returns before its WAL is flushed (an
# OS crash may lose the last updates; a PostgreSQL crash loses nothing),
# and the minimal WAL, with no replication.
synchronous_commit = off
wal_level = minimal
max_wal_senders = 0
# TechEmpower's memory: the whole data set (about 1 MB) stays in memory.
shared_buffers = 256MB
work_mem = 64MB
# Every statement counted, nested ones too, as TechEmpower's verifier
# counts them to catch caching and batched reads (SPEC §8).
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
pg_stat_statements.max = 10000
track_activity_query_size = 2048
# Errors to stderr, which concur keeps in the cluster's log file.
logging_collector = off
log_min_messages = warning
";

/// `pg_hba.conf`: password logins over loopback TCP only.
pub const HBA: &str = "# concur (src/db/config.rs): password logins over loopback only.\nhost all all 127.0.0.1/32 scram-sha-256\n";
